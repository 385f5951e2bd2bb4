"""What a new console password may be: 8-1,024 characters, not one of the bundled 10,000
most common passwords, not the account's own name (all case-blind)."""

from __future__ import annotations

import pytest

from rk.server.console.accounts.passwords import common_passwords, password_problem


def test_the_bundled_list_holds_ten_thousand_lowercase_passwords() -> None:
    listed = common_passwords()
    assert len(listed) == 10_000
    assert {"123456", "password", "12345678", "qwerty", "iloveyou"} <= listed
    assert all(entry == entry.lower() for entry in listed)


@pytest.mark.parametrize(
    ("password", "username", "words"),
    [
        ("12345678", "ada", "one of the 10,000 most common"),
        ("password", "ada", "one of the 10,000 most common"),
        ("PASSWORD", "ada", "one of the 10,000 most common"),
        ("Iloveyou", "ada", "one of the 10,000 most common"),
        ("Ada.Lovelace", "ada.lovelace", "may not be or contain the user name"),
        ("ecalevol.ada", "ada.lovelace", "may not be or contain the user name"),
        ("my ADA.LOVELACE account", "ada.lovelace", "may not be or contain the user name"),
        ("qzxwkvbn", "QZXWKVBN", "may not be or contain the user name"),
        ("short", "ada", "at least 8 characters"),
        ("p" * 1025, "ada", "at most 1024 characters"),
    ],
)
def test_weak_passwords_are_refused(password: str, username: str, words: str) -> None:
    assert words in password_problem(password, username)


@pytest.mark.parametrize(
    ("password", "username"),
    [
        ("correct horse battery", "ada"),
        ("vT9#qLm2-Ez", "ada.lovelace"),
        ("p" * 1024, "ada"),
        ("adamant tortoise", "ada"),  # a short name only counts when it is the whole password
    ],
)
def test_strong_passwords_are_accepted(password: str, username: str) -> None:
    assert password_problem(password, username) == ""
