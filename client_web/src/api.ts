/**
 * The JSON API under `/api/` (server/api/README.md): one fetch helper that never throws, and the
 * words shown for its errors. The session cookie is HttpOnly: the page never sees it, the browser
 * sends it (same origin).
 */

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; code: string; message: string };

/** `method` `path` with an optional JSON body; a network failure is status 0, code `network`. */
export async function api<T>(method: "GET" | "POST", path: string, body?: object): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? { Accept: "application/json" } : { "Content-Type": "application/json", Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, code: "network", message: "" };
  }
  let data: any = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (res.ok) return { ok: true, status: res.status, data: data as T };
  const err = data && typeof data === "object" && data.error && typeof data.error === "object" ? data.error : {};
  return { ok: false, status: res.status, code: typeof err.code === "string" ? err.code : "", message: typeof err.message === "string" ? err.message : "" };
}

/** What to tell the player about a failed request (the server's message is plain text, shown as text). */
/** A refusal's reason without the field the server's message begins with ("username: must be ..."): the dialog
 * that shows it has one field of that name. */
function reason(message: string): string {
  return message.replace(/^\w+: /, "");
}

export function apiErrorText(r: { status: number; code: string; message: string }): string {
  if (r.status === 429 || r.code === "too_many_attempts") {
    // a name locked by failed logins: the server says how long (the real owner learns why the right password fails)
    const wait = /for this name; try again in (\d+) minutes?/.exec(r.message);
    if (wait) return `Too many attempts: too many failed logins for this name. Try again in ${wait[1]} minute${wait[1] === "1" ? "" : "s"}.`;
    return "Too many attempts. Wait a few minutes and try again.";
  }
  switch (r.code) {
    case "network":
      return "Could not reach the server. Check the connection and try again.";
    case "username_taken":
      return "That name is taken (names that differ only by case, look-alike letters or the separators space, _, - and . count as the same).";
    case "reserved_username":
      return "That name is reserved; choose another.";
    case "bad_username":
      return `That name is not allowed: ${reason(r.message).replace(/\.$/, "")}.`;
    case "bad_password":
      return `The password is too weak: ${reason(r.message)}.`;
    case "login_failed":
      return "Wrong username or password.";
    case "not_logged_in":
      return "You are not logged in (or your session ended). Log in again.";
    case "not_found":
      return "Not found.";
    case "unavailable":
      return "The server's database is not answering; try again shortly.";
  }
  return r.message ? `The server refused: ${r.message}` : `The server answered ${r.status}.`;
}
