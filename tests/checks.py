"""The runner of the Python test scripts that drive the CLI (tests/catalog/test_cli.py,
tests/marian/test_import.py): each check runs on its own, a failure prints its traceback and the
others still run, and the script ends with the closing line every suite of tests/run_all prints.

    from checks import check, closing
    check("what it shows", fn)
    sys.exit(closing())
"""
import time
import traceback

RESULTS = {"passed": 0, "failed": 0}


def check(name, fn):
    t0 = time.time()
    try:
        fn()
    except Exception:  # a test's failure is reported, the others still run
        RESULTS["failed"] += 1
        print(f"FAIL {name}\n{traceback.format_exc()}", flush=True)
        return
    RESULTS["passed"] += 1
    print(f"ok   {name} ({time.time() - t0:.1f} s)", flush=True)


def closing():
    """Prints "N passed, N failed" and returns the exit status."""
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0
