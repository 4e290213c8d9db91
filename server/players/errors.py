"""The errors of the players' layer: each has a short machine-readable ``code`` the API turns into a status.

=====================  =============================================================  ======
code                   meaning                                                        status
=====================  =============================================================  ======
bad_username           not a username (names.py)                                      400
reserved_username      the computer's or a reserved name                              400
bad_password           not an acceptable password                                     400
bad_field              another field malformed                                        400
username_taken         the name, or one that differs by case or confusables, exists   409
login_failed           wrong password, unknown user or locked-out user (alike)        401
not_logged_in          no valid session                                               401
too_many_attempts      too many failed logins from this address                       429
not_found              no such player or game                                         404
=====================  =============================================================  ======
"""

from __future__ import annotations


class PlayersError(Exception):
    """An error with a ``code`` (table above) and a message safe to show the client."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message
