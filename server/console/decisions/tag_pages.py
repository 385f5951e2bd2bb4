"""``POST /admin/images/{id}/tags``: a moderator confirms, removes or adds one tag of an image
on the review page; the decision is audited (``rk.server.tags.decide_tag``) and the review
page of the image's article is shown again at the image's tags.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, post

from rk.server.console.article_pages import REVIEW, review_context
from rk.server.console.decisions.decision_pages import actor_of
from rk.server.console.params import Segment, path_id
from rk.server.console.render import form_error, form_of, text
from rk.server.platform.web.pages import redirect_with
from rk.server.tags import BadTag, TagDecision, decide_tag, tags_of

DONE = {"confirmed": "Confirmed", "removed": "Removed"}


def said(decision: TagDecision) -> str:
    """The flash line of a decision: ``Removed tag plaid.``, or that nothing changed."""
    if not decision.changed:
        return f"Tag {decision.tag} was already {decision.new}."
    verb = "Added" if decision.old == "" else DONE.get(decision.new, decision.new)
    return f"{verb} tag {decision.tag}."


class TagDecisionPages(Controller):
    """The tag forms of the review page."""

    path = "/images"
    include_in_schema = False

    @post("/{image_id:str}/tags", name="admin:image-tags", status_code=303)
    async def decide(self, request: Request[Any, Any, Any], image_id: Segment) -> Response[Any]:
        """Confirm, remove or add the posted ``tag`` (``action``); an unknown tag or action
        shows the review page again with the reason (400)."""
        number = path_id(image_id, "image")
        form = await form_of(request)
        vocabulary = tags_of(request.app.state).vocabulary
        tag, action = text(form, "tag")[:100], text(form, "action")[:20]
        try:
            decision = await decide_tag(vocabulary, number, tag, action, actor_of(request))
        except BadTag as exc:
            article = path_id(text(form, "article") or "0", "article")
            context = await review_context(request, article)
            return form_error(request, REVIEW, context, "form", str(exc), exc.status_code)
        return redirect_with(
            f"/admin/articles/{decision.article_id}#tags-{decision.image_id}", said(decision)
        )
