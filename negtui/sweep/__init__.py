"""The benchmark at scale: a grid of games (the paper's regimes, or scenario files) played by every
method against the No-Negotiation baseline and, on small games, the exact solution; one tidy table
out (Parquet or CSV), on a local process pool or a Dask cluster; and the paper's tables and figures
from it (`negtui report`)."""
