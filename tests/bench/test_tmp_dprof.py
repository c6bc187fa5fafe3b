import cProfile, pstats, subprocess, sys, time
import pytest
from test_bench_dream import nanobot_python, nanobot, fixture_home  # noqa: F401
from engine.dream.run import DreamOptions, run_dream
from engine.llm import choose_model, make_client
from engine.workspace import Workspace
pytestmark = pytest.mark.bench

def test_p(nanobot, fixture_home):
    for i in range(3):
        ws = Workspace.open(fixture_home())
        calls = []
        real = subprocess.Popen.__init__
        def hook(ev, args):
            if ev == "subprocess.Popen": calls.append(args[1][-1] if args[1] else "")
        if i == 0: sys.addaudithook(hook)
        pr = cProfile.Profile(); pr.enable()
        t0 = time.perf_counter()
        choice, key = choose_model(ws.config())
        res = run_dream(ws, make_client(choice, key), DreamOptions())
        pr.disable()
        print("run", round((time.perf_counter() - t0) * 1000), len(calls))
    pstats.Stats(pr).sort_stats("tottime").print_stats(14)
