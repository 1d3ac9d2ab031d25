"""Helpers shared by the test modules (no tests here): `from support.X import ...` works because
pytest puts tests/ on sys.path (rootdir-relative imports, no tests/__init__.py)."""
