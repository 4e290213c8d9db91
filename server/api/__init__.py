"""The JSON HTTP API under ``/api/`` as transport-independent handlers (README.md in this folder).

``PlayersApi(db, accounts).handle(ApiRequest) -> ApiResponse``; ``openapi.document(api.routes)``.
Imports ``server.players`` and ``server.db``; nothing else of ``server``.
"""

from server.api.handlers import COOKIE, PlayersApi
from server.api.messages import MAX_BODY_BYTES, ApiRequest, ApiResponse
from server.api.openapi import document

__all__ = ["COOKIE", "MAX_BODY_BYTES", "ApiRequest", "ApiResponse", "PlayersApi", "document"]
