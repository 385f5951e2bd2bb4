"""The shared template filters: counts, sizes and times as the pages show them."""

from __future__ import annotations

from rk.server.platform.web.templating import (
    environment,
    filesize,
    relative,
    show_date,
    thousands,
    timeago,
)

NOW = 1_800_000_000


def test_counts_and_sizes_read_at_a_glance() -> None:
    assert thousands(1234567) == "1,234,567"
    assert thousands(None) == "—"
    assert filesize(0) == "0 B"
    assert filesize(999) == "999 B"
    assert filesize(1_400_000) == "1.4 MB"
    assert filesize(3_200_000_000) == "3.2 GB"


def test_relative_times_both_ways() -> None:
    assert relative(0, NOW) == "never"
    assert relative(NOW - 10, NOW) == "just now"
    assert relative(NOW - 180, NOW) == "3 min ago"
    assert relative(NOW - 2 * 3600, NOW) == "2 h ago"
    assert relative(NOW - 86400, NOW) == "1 day ago"
    assert relative(NOW - 3 * 86400, NOW) == "3 days ago"
    assert relative(NOW + 300, NOW) == "in 5 min"


def test_timeago_carries_the_exact_time() -> None:
    html = str(timeago(NOW))
    assert 'datetime="2027-01-15T08:00:00+00:00"' in html
    assert 'title="2027-01-15 08:00 UTC"' in html
    assert str(timeago(0)) == '<span class="muted">never</span>'


def test_templates_escape_what_they_show() -> None:
    env = environment()
    rendered = env.from_string("{{ name }}").render(name="<b>Kestrel & Vine</b>")
    assert rendered == "&lt;b&gt;Kestrel &amp; Vine&lt;/b&gt;"


def test_show_date_prints_the_day_of_either_form_a_source_gives() -> None:
    assert show_date("2025-09-30") == '<time datetime="2025-09-30">30 September 2025</time>'
    stamped = show_date("2026-03-02T19:00:00.000Z")
    assert stamped == '<time datetime="2026-03-02">2 March 2026</time>'
    assert "1 March 2026" in show_date("2026-03-01T23:30:00-05:00")


def test_show_date_keeps_text_that_is_not_a_date_and_escapes_it() -> None:
    assert show_date("Spring <b>2026</b>") == "Spring &lt;b&gt;2026&lt;/b&gt;"
    assert show_date(None) == ""
    assert show_date("") == ""
