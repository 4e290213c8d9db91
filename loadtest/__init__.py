"""Load tests: Locust users (locustfile.py), the make-loadtest runner (run.py) and the lean asyncio load client (lean.py)."""
