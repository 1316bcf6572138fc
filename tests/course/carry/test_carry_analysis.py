"""The static reading of a cell: what it defines, reads and leaves unfinished, as Python scopes."""

from course.carry.analysis import defined_names, stubbed_functions, used_globals

pytestmark = []


def test_the_static_reading_sees_scopes_as_python_does():
    source = (
        "import json\n"
        "TABLE = {}\n"
        "def f(x):\n"
        "    y = [z for z in x if z > LIMIT]\n"
        "    return json.dumps(y) + TABLE + HELPER(x)\n"
        "class A:\n"
        "    size = 1\n"
        "    def method(self):\n"
        "        return size\n"
        "def g():\n"
        "    global COUNT\n"
        "    COUNT = 1\n"
    )
    assert defined_names(source) == {"json", "TABLE", "f", "A", "g", "COUNT"}
    assert used_globals(source) - {"json", "TABLE"} == {"LIMIT", "HELPER", "size"}
    assert stubbed_functions("def f():\n    '''doc'''\n    raise NotImplementedError()\n") == {"f"}
    assert (
        stubbed_functions("def f(x):\n    if x:\n        raise NotImplementedError\n    return 1\n")
        == set()
    )
