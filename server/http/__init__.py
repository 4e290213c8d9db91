"""HTTP on the server's one port: the connection class (transport.py), the routes (routes.py), static files."""
