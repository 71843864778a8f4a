import pytest


@pytest.fixture(autouse=True, scope="module")
def one_openmp_thread():
    """The probes' gradient-boosted trees are small fits: OpenMP threads on the shared cores of a test
    run (three processes on two cores) only slow them, ten times over."""
    import sklearn.ensemble  # noqa: F401  loads OpenMP, which threadpool_limits limits only once loaded
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield
