"""Throughput benchmarks of the environments (``python -m benchmarks.bench_envs``)."""
