"""The review flow's decisions: approve, reject or delete one article, a batch after its
confirmation, a reason for every rejection, the undo of the session's last decision, and
the confirmation, removal or addition of one image's tag (``tag_pages``).

Moderation itself (the status change, its audit row, the events) is
``rk.server.moderation``'s; these modules add what the console asks of a moderator around
it, and its SQL is ``console/repository/decisions.py``.
"""
