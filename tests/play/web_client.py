"""What the uno-web tests share: the table behind an app, and a client that sends the page's token."""

from uno_env.play import web


def table(app) -> web.WebTable:
    return app.extensions["uno_table"]


def page_client(app):
    """A test client that sends the page's token with every request, as the page does."""
    client = app.test_client()
    client.environ_base["HTTP_X_UNO_TOKEN"] = web.page_token(app)
    return client
