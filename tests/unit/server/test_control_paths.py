"""Which decoded paths count as holding a control character: every C0, DEL and C1, nothing else."""

from __future__ import annotations

from rk.server.platform.http.control_paths import has_control

CONTROLS = [chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)]]


def test_every_c0_del_and_c1_character_is_caught_anywhere_in_the_path() -> None:
    for char in CONTROLS:
        assert has_control(f"/static/a{char}b"), repr(char)
        assert has_control(f"/brands/café{char}"), repr(char)


def test_printable_paths_pass_ascii_or_not() -> None:
    for path in ("/", "/static/rk.css", "/brands/abc123", "/brands/café", "/a b/~!$&'()*+,;=:@"):
        assert not has_control(path), path
    assert not has_control("/" + "".join(chr(c) for c in range(0xA0, 0x3000)))
