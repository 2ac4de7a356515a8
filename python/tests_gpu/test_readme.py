"""The README's Python examples run as written: its ```python blocks of the Python section,
in order, in one namespace, on the GPU; the results are then checked against fp64."""

import pathlib
import re

import torch

# The source tree's README, or the bundle's copy beside python/.
README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def python_blocks():
    text = README.read_text()
    section = text[text.index("### Python"):]
    section = section[:section.index("\n### ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_python_examples_run():
    blocks = python_blocks()
    assert len(blocks) >= 2
    scope = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), scope)  # noqa: S102 - the README's own code
    a, b, bias, d = (scope[k] for k in ("a", "b", "bias", "d"))
    x = a.double() @ b.double() + bias.double()[:, None]
    want = 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
    error = float(torch.linalg.norm(d.double() - want) / torch.linalg.norm(want))
    assert error < 1e-2, error
