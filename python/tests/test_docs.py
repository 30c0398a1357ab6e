"""The examples of the package's docstring run as written (doctest): every name they use is defined, and every
result they show is what the calls return. Examples that need a GPU are marked to be skipped."""
import doctest

import starfact


def test_module_docstring_examples():
    tests = [t for t in doctest.DocTestFinder().find(starfact) if t.name == "starfact"]
    assert len(tests) == 1 and tests[0].examples, "the module docstring has no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "%d of the module docstring's examples failed (output above)" % result.failed
    assert result.attempted >= 10
