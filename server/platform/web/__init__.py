"""rk.server.platform.web: what the admin console and the public site share.

One Jinja2 environment (``templating``), one stylesheet and script under ``/static``
(``static_files``), one base layout and its macros (``templates/``), the page helper with
flash messages (``pages``), and HTML error pages for browsers (``errors``). The console
(``rk.server.console``) and the site (``rk.server.site``) add their own templates and
routes on top; neither builds a second layout.
"""
