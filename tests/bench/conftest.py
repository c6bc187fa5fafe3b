from bench_harness import TABLES


def pytest_terminal_summary(terminalreporter):
    """Benchmark tables print without -s: pytest's own summary carries them."""
    if TABLES:
        terminalreporter.section("benchmarks")
        for text in TABLES:
            terminalreporter.write_line(text + "\n")
