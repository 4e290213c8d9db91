"""The OpenAPI 3.1 document of the API, generated from the route declarations and server/api/schemas.py.

Served (by the lead's HTTP transport) at ``/api/openapi.json``. Every route's responses name a
component schema; the 413, 415, 403, 405, 500 and 503 answers every route can give are listed on
each as well. The tests validate the document (openapi-spec-validator) and every response of the
in-process tests against it.
"""

from __future__ import annotations

from typing import Any, Dict, List

from server.api.router import Route
from server.api.schemas import SCHEMAS

_COMMON_GET = {400: "a bad request path (a control character)", 405: "method not allowed", 413: "request body over 16 KB", 500: "internal error",
               503: "the database is not answering"}
_COMMON_POST = {**_COMMON_GET, 400: "body not valid JSON or not fitting its schema",
                403: "a cross-origin request (Origin of another site)", 415: "the body is not application/json (UTF-8)"}


def _content(schema: str) -> Dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}


def document(routes: List[Route], version: str = "0.1.0") -> Dict[str, Any]:
    """The OpenAPI document (a JSON-ready dict) of ``routes``."""
    paths: Dict[str, Any] = {}
    for r in routes:
        op: Dict[str, Any] = {"operationId": r.operation_id, "summary": r.summary, "tags": [r.tag], "responses": {}}
        if r.params:
            op["parameters"] = [{"name": p.name, "in": p.where, "required": p.required if p.where == "query" else True,
                                 "schema": p.schema, "description": p.description} for p in r.params]
        if r.body:
            op["requestBody"] = {"required": True, "content": _content(r.body)}
        common = _COMMON_POST if r.body else _COMMON_GET
        statuses = dict(common)
        for status, (desc, _) in r.responses.items():
            statuses[status] = desc
        for status in sorted(statuses):
            desc = statuses[status]
            schema = r.responses[status][1] if status in r.responses else "Error"
            resp: Dict[str, Any] = {"description": desc}
            if schema:
                resp["content"] = _content(schema)
            if status in r.responses and status < 300 and r.body and r.operation_id in (
                    "register", "login", "changePassword", "logout", "deleteAccount"):
                resp["headers"] = {"Set-Cookie": {"description": "billar_session (HttpOnly; SameSite=Lax; Secure over HTTPS)",
                                                  "schema": {"type": "string"}}}
            op["responses"][str(status)] = resp
        paths.setdefault(r.pattern, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "billar players API", "version": version,
                 "description": "Accounts, ratings, statistics, game records and leaderboards of billar. Errors are "
                                "{\"error\": {\"code\", \"message\"}}. State-changing requests take a JSON body "
                                "and are refused from other origins."},
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"session": {"type": "apiKey", "in": "cookie", "name": "billar_session"}},
        },
    }
