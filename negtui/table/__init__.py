"""A table: one game several people share, owned by a process of its own (host.py) that is the only
writer of its record; every person's app is its client over a local socket (client.py, source.py)."""
