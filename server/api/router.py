"""Routes: a method, a path pattern with ``{name}`` segments, a handler and what the OpenAPI document says of it.

:meth:`Router.match` tells an unknown path (404) from a known path with another method (405, with
the methods allowed). Path parameters are percent-decoded UTF-8; a segment that does not decode
matches nothing. Integer parameters (``kind="integer"``) match only digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple
from urllib.parse import unquote

Handler = Callable[..., Awaitable[Any]]


@dataclass
class Param:
    """A path or query parameter: ``name``, ``where`` ("path" or "query"), JSON ``schema``, ``description``."""

    name: str
    where: str
    schema: Dict[str, Any]
    description: str = ""
    required: bool = True
    loose: bool = False  # a path parameter matched as any segment and passed as text: the handler says what is wrong


@dataclass
class Route:
    method: str
    pattern: str
    handler: Handler
    summary: str
    operation_id: str
    responses: Dict[int, Tuple[str, Optional[str]]]  # status -> (description, component schema name or None)
    params: List[Param] = field(default_factory=list)
    body: Optional[str] = None  # component schema name of the JSON body (state-changing routes)
    tag: str = "players"
    raw_response: bool = False  # the 200 body is sent as stored (gzip JSON)
    max_body: Optional[int] = None  # a smaller body limit than the API's (413 over it)

    def __post_init__(self):
        parts = []
        for seg in self.pattern.strip("/").split("/"):
            m = re.fullmatch(r"\{(\w+)\}", seg)
            if m:
                kind = next((p.schema.get("type") for p in self.params if p.name == m.group(1) and not p.loose),
                            "string")
                parts.append(f"(?P<{m.group(1)}>[0-9]{{1,19}})" if kind == "integer" else f"(?P<{m.group(1)}>[^/]+)")
            else:
                parts.append(re.escape(seg))
        self.regex = re.compile("/" + "/".join(parts))


class Router:
    def __init__(self, routes: List[Route]):
        self.routes = routes

    def match(self, method: str, path: str) -> Tuple[Optional[Route], Dict[str, Any], List[str]]:
        """(route, path parameters, allowed methods): route None and allowed [] for an unknown path,
        route None and allowed non-empty for a known path with another method."""
        allowed: List[str] = []
        for r in self.routes:
            m = r.regex.fullmatch(path)
            if not m:
                continue
            if r.method != method:
                allowed.append(r.method)
                continue
            params: Dict[str, Any] = {}
            for k, v in m.groupdict().items():
                try:
                    text = unquote(v, errors="strict")
                except UnicodeDecodeError:
                    return None, {}, []
                kind = next((p.schema.get("type") for p in r.params if p.name == k and not p.loose), "string")
                params[k] = int(text) if kind == "integer" else text
            return r, params, []
        return None, {}, sorted(set(allowed))
