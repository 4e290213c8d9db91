/**
 * The account control in the header: "Log in" / "Register" for a guest (a form in a dialog, the
 * API's refusal in words under it), the player's name with a menu when logged in (profile, change
 * password, log out, delete account). Every change of login state is reported to `changed`, which
 * reconnects the WebSocket so its `hello` carries the session cookie.
 */

import { api, apiErrorText } from "../api";
import { profileHref } from "../players/model";
import { h, toast } from "./dom";

export interface Account {
  username: string;
}

type FormKind = "login" | "register" | "password" | "delete";

export class AccountControl {
  readonly el: HTMLElement;
  account: Account | null = null;
  private modal: HTMLElement | null = null;
  private menu: HTMLElement | null = null;

  constructor(private readonly changed: (a: Account | null) => void) {
    this.el = h("div", { class: "account", id: "account" });
    this.render();
    document.addEventListener("click", (e) => {
      if (this.menu && !this.el.contains(e.target as Node)) this.closeMenu();
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        this.closeMenu();
        this.closeModal();
      }
    });
  }

  /** The account the WebSocket's welcome named (null: a guest): the header follows it. */
  noteWelcome(name: string | null): void {
    if ((name ?? null) !== (this.account?.username ?? null)) {
      this.account = name === null ? null : { username: name };
      this.render();
    }
  }

  private set(a: Account | null, report = true): void {
    this.account = a;
    this.render();
    if (report) this.changed(a);
  }

  private render(): void {
    this.closeMenu();
    const a = this.account;
    this.el.dataset.user = a?.username ?? "";
    if (!a) {
      this.el.replaceChildren(
        h("button", { type: "button", class: "small", id: "login-btn", onclick: () => this.open("login") }, "Log in"),
        h("button", { type: "button", class: "small primary", id: "register-btn", onclick: () => this.open("register") }, "Register"),
      );
      return;
    }
    this.el.replaceChildren(
      h(
        "button",
        { type: "button", class: "small account-name", id: "account-btn", "aria-haspopup": "menu", "aria-expanded": "false", title: "Your account", onclick: () => this.toggleMenu() },
        h("span", { class: "who", "data-testid": "account-name" }, a.username),
        " \u25be",
      ),
    );
  }

  private toggleMenu(): void {
    if (this.menu) return this.closeMenu();
    const a = this.account;
    if (!a) return;
    const item = (id: string, label: string, run: () => void, cls = "") =>
      h("button", { type: "button", role: "menuitem", id, class: `menu-item ${cls}`, onclick: () => (this.closeMenu(), run()) }, label);
    this.menu = h(
      "div",
      { class: "account-menu", role: "menu", id: "account-menu" },
      h("a", { role: "menuitem", class: "menu-item", id: "menu-profile", href: profileHref(a.username), onclick: () => this.closeMenu() }, "Profile"),
      item("menu-password", "Change password", () => this.open("password")),
      item("menu-logout", "Log out", () => void this.logout()),
      item("menu-delete", "Delete account", () => this.open("delete"), "danger-text"),
    );
    this.el.append(this.menu);
    this.el.querySelector("#account-btn")?.setAttribute("aria-expanded", "true");
  }

  private closeMenu(): void {
    this.menu?.remove();
    this.menu = null;
    this.el.querySelector("#account-btn")?.setAttribute("aria-expanded", "false");
  }

  private closeModal(): void {
    this.modal?.remove();
    this.modal = null;
  }

  private async logout(): Promise<void> {
    const r = await api("POST", "/api/account/logout", {});
    if (!r.ok) {
      toast(apiErrorText(r), "error");
      return;
    }
    this.set(null);
    toast("Logged out.");
  }

  /** The dialog of form `kind`. */
  private open(kind: FormKind): void {
    this.closeModal();
    const err = h("p", { class: "form-error", role: "alert", "data-testid": "account-error" });
    const field = (label: string, name: string, type: string, auto: string, extra: Record<string, string | number | boolean> = {}) =>
      h("label", { class: "field" }, label, h("input", { name, type, autocomplete: auto, required: true, ...extra }));
    const titles: Record<FormKind, string> = { login: "Log in", register: "Register", password: "Change password", delete: "Delete account" };
    const fields: HTMLElement[] = [];
    if (kind === "login" || kind === "register") {
      fields.push(field("Username", "username", "text", "username", { maxlength: 20, id: "acc-username", spellcheck: false, autocapitalize: "off" }));
      fields.push(field("Password", "password", "password", kind === "login" ? "current-password" : "new-password", { id: "acc-password", maxlength: 256 }));
      if (kind === "register") fields.push(h("p", { class: "hint" }, "2-20 characters for the name; at least 8 for the password, 4 of them different, not a run like 12345678. Your games, ratings and statistics are kept under this name."));
    } else if (kind === "password") {
      fields.push(field("Current password", "current_password", "password", "current-password", { id: "acc-current" }));
      fields.push(field("New password", "new_password", "password", "new-password", { id: "acc-new", maxlength: 256 }));
    } else {
      fields.push(h("p", {}, "Your account is deleted for good. Your games stay in the records under a retired name; your ratings and this name's login are gone."));
      fields.push(field("Password", "password", "password", "current-password", { id: "acc-password" }));
      fields.push(h("label", { class: "check" }, h("input", { type: "checkbox", name: "confirm", id: "acc-confirm", required: true }), " I want to delete my account"));
    }
    const submit = h("button", { type: "submit", class: kind === "delete" ? "danger" : "primary", id: "acc-submit" }, titles[kind]);
    const other =
      kind === "login"
        ? h("button", { type: "button", class: "link", id: "acc-switch", onclick: () => this.open("register") }, "No account? Register")
        : kind === "register"
          ? h("button", { type: "button", class: "link", id: "acc-switch", onclick: () => this.open("login") }, "Have an account? Log in")
          : null;
    const form = h(
      "form",
      { class: "account-form", "data-kind": kind },
      h("h2", {}, titles[kind]),
      ...fields,
      err,
      h("div", { class: "buttons" }, submit, h("button", { type: "button", id: "acc-cancel", onclick: () => this.closeModal() }, "Cancel"), other),
    ) as HTMLFormElement;
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const fd = new FormData(form);
      const v = (k: string) => String(fd.get(k) ?? "");
      submit.disabled = true;
      err.textContent = "";
      void this.submit(kind, v).then((msg) => {
        submit.disabled = false;
        if (msg === null) this.closeModal();
        else err.textContent = msg;
      });
    });
    this.modal = h("div", { class: "modal-back", onclick: (e: Event) => e.target === this.modal && this.closeModal() }, h("div", { class: "modal card", role: "dialog", "aria-modal": "true", "aria-label": titles[kind] }, form));
    document.body.append(this.modal);
    (form.querySelector("input") as HTMLInputElement | null)?.focus();
  }

  /** Send form `kind`; null when done, else the words of the refusal. */
  private async submit(kind: FormKind, v: (k: string) => string): Promise<string | null> {
    if (kind === "login" || kind === "register") {
      const r = await api<{ account: Account }>("POST", `/api/account/${kind}`, { username: v("username").trim(), password: v("password") });
      if (!r.ok) return apiErrorText(r);
      this.set({ username: r.data.account.username });
      toast(kind === "login" ? `Logged in as ${r.data.account.username}.` : `Welcome, ${r.data.account.username}: your account is ready.`);
      return null;
    }
    if (kind === "password") {
      const r = await api("POST", "/api/account/password", { current_password: v("current_password"), new_password: v("new_password") });
      if (!r.ok) return r.code === "login_failed" || r.status === 401 ? "The current password is wrong (or your session ended)." : apiErrorText(r);
      toast("Password changed; your other sessions are logged out.");
      return null;
    }
    if (v("confirm") !== "on") return "Tick the box to confirm.";
    const r = await api<{ retired_name: string }>("POST", "/api/account/delete", { password: v("password") });
    if (!r.ok) return r.status === 401 ? "Wrong password." : apiErrorText(r);
    this.set(null);
    toast("Your account is deleted.");
    return null;
  }
}
