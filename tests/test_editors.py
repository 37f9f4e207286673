"""The editor plugins of examples/editors/, driven in the real editors on real reductions.

Neovim runs headless (`nvim --headless`) with only the plugin loaded; a Lua script does what a
user would (`:TreeReduce ...`, typing while it runs, `:TreeReduceStop`, `undo`) and writes what
they would see (the buffer, the windows, the messages) to a JSON file. Emacs runs in batch mode
(`emacs --batch`) with the plugin loaded and an `--eval` doing the same. Each test skips, saying
which package to install, when its editor is not on PATH. The results are re-checked by running
the test on them ourselves.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, HANG

from treereduce_py.lang import languages

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parent.parent
NVIM_PLUGIN = REPO / "examples" / "editors" / "treereduce.lua"
EMACS_PLUGIN = REPO / "examples" / "editors" / "treereduce.el"

# Raises ZeroDivisionError in the last call; the comment has a non-ASCII letter (2 bytes in
# UTF-8), so a size in characters and one in bytes differ.
MEAN_PY = """\
# Averages, with a café's prices.
def ratio(a, b):
    return a / b


def mean(xs):
    return ratio(sum(xs), len(xs))


print(mean([3, 4]))
print(mean([]))
"""
DIVIDES = "--exit-code 1 --stderr-regex 'division by zero' -- python3 @@"

# Interesting while the candidate keeps "keep me"; once a candidate smaller than the original has
# passed, every smaller one hangs, so a run is surely mid-way, with a best result, when stopped.
HOLD_SH = """\
#!/bin/sh
grep -q "keep me" "$1" || exit 1
[ "$(wc -c < "$1")" -lt {size} ] || exit 0
[ -e "{passed}" ] && sleep 120
touch "{passed}"
exit 0
"""


def editor(name: str, package: str) -> str:
    """The editor's executable; skips the test, naming the Debian package, when it is absent."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (Debian: apt-get install {package})")
    return found


def editor_env(home: Path, path: str | None = None) -> dict[str, str]:
    """A new user's environment: an empty HOME, and treereduce-py (this checkout's) on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "NVIM", "EMACS"))}
    env.update(HOME=str(home), TERM="dumb", LC_ALL="C.UTF-8")
    env["PATH"] = path if path is not None else f"{CLI.parent}{os.pathsep}{env['PATH']}"
    return env


def path_without_treereduce() -> str:
    """PATH with every directory holding a treereduce-py left out."""
    dirs = [*os.environ["PATH"].split(os.pathsep), str(CLI.parent)]
    kept = [d for d in dirs if d and not (Path(d) / "treereduce-py").exists()]
    return os.pathsep.join(dict.fromkeys(kept))


def raises_zero_division(path: Path) -> bool:
    proc = subprocess.run(
        ["python3", path], capture_output=True, timeout=60, stdin=subprocess.DEVNULL
    )
    return proc.returncode == 1 and b"ZeroDivisionError: division by zero" in proc.stderr


# ---------------------------------------------------------------------------------------------
# Neovim

# Loaded before each test's Lua: records the messages the plugin shows, and writes `result`
# (with the messages and any Lua error) as JSON when the test's code returns or fails.
NVIM_PRELUDE = """\
local messages = {}
vim.notify = function(msg, level) table.insert(messages, { msg = msg, level = level or 2 }) end
local function wait_done(buf)
  return vim.wait(%(hang)d, function() return vim.b[buf].treereduce_job == nil end, 20)
end
local function wait_message(pattern)
  return vim.wait(%(hang)d, function()
    for _, m in ipairs(messages) do
      if m.msg:find(pattern) then return true end
    end
    return false
  end, 20)
end
local function lines(buf) return vim.api.nvim_buf_get_lines(buf, 0, -1, false) end
local result = {}
local ok, err = pcall(function()
%(body)s
end)
vim.wait(200) -- the last scheduled messages
result.error = not ok and tostring(err) or vim.NIL
result.messages = messages
result.errmsg = vim.v.errmsg
vim.fn.writefile({ vim.fn.json_encode(result) }, [[%(out)s]])
"""


def run_nvim(
    tmp_path: Path, body: str, file: Path | None = None, path: str | None = None
) -> dict[str, Any]:
    """Start headless Neovim (on `file`, if given) with only the plugin, run the Lua `body` and
    return its `result` table, with `messages` (each `msg` and `level`) and `error` added."""
    nvim = editor("nvim", "neovim")
    out = tmp_path / "result.json"
    script = tmp_path / "test.lua"
    script.write_text(NVIM_PRELUDE % {"body": body, "out": out, "hang": int(HANG * 1000)})
    args = [nvim, "--headless", "--clean", "-n", "-i", "NONE"]
    args += [str(file)] if file is not None else []
    args += ["-c", f"luafile {NVIM_PLUGIN}", "-c", f"luafile {script}", "-c", "qa!"]
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    proc = subprocess.run(
        args,
        cwd=tmp_path,
        env=editor_env(home, path),
        capture_output=True,
        timeout=HANG + 60,
        stdin=subprocess.DEVNULL,
    )
    err = proc.stderr.decode(errors="replace")
    assert out.exists(), f"nvim exited {proc.returncode} without a result:\n{err}"
    result: dict[str, Any] = json.loads(out.read_text())
    assert result["error"] is None, result
    assert "E5108" not in err and "stack traceback" not in err, err
    return result


def texts(result: dict[str, Any], level: int | None = None) -> list[str]:
    """The plugin's messages (at `level` only, if given: 2 info, 3 warn, 4 error)."""
    return [m["msg"] for m in result["messages"] if level is None or m["level"] == level]


def test_nvim_reduces_the_buffer_and_undo_restores_it(tmp_path: Path) -> None:
    source = tmp_path / "mean.py"
    source.write_text(MEAN_PY)
    # The regex has a space: quoted, it stays one argument.
    body = f"""
  local buf = vim.api.nvim_get_current_buf()
  result.original = lines(buf)
  vim.cmd([[TreeReduce {DIVIDES}]])
  result.started = vim.b[buf].treereduce_job ~= nil
  result.finished = wait_done(buf)
  result.reduced = lines(buf)
  result.windows = #vim.api.nvim_list_wins()
  vim.cmd("undo")
  result.undone = lines(buf)
"""
    result = run_nvim(tmp_path, body, source)

    assert result["started"] and result["finished"], result
    reduced = "\n".join(result["reduced"]) + "\n"
    assert len(reduced.encode()) < len(MEAN_PY.encode()) // 2, reduced
    (tmp_path / "reduced.py").write_text(reduced)
    assert raises_zero_division(tmp_path / "reduced.py"), reduced
    assert result["undone"] == result["original"] == MEAN_PY.splitlines()
    assert result["windows"] == 1
    messages = texts(result)
    size = len(MEAN_PY.encode())
    assert messages[0] == f"treereduce: reducing {size} bytes of python", messages
    assert messages[-1].endswith(", fixpoint") and f"{size} -> " in messages[-1], messages
    assert not texts(result, 4), messages


def hold_setup(tmp_path: Path, lines: int) -> tuple[Path, str]:
    """A Python file of `lines` assignments and one `keep me` line, and the :TreeReduce arguments
    of a test that holds the run once it has a smaller result (HOLD_SH)."""
    body = "".join(f"value_{i} = {i} * {i}\n" for i in range(lines))
    source = tmp_path / "prog.py"
    source.write_text(body + 'note = "keep me"\n' + body.replace("value_", "other_"))
    hold = tmp_path / "hold.sh"
    hold.write_text(HOLD_SH.format(size=source.stat().st_size, passed=tmp_path / "passed"))
    return source, f"--timeout 300 -- sh {hold} @@"


def test_nvim_stop_keeps_the_best_result_so_far(tmp_path: Path) -> None:
    source, args = hold_setup(tmp_path, 30)
    body = f"""
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd([[TreeReduce {args}]])
  result.improved = wait_message("%d+ %-> %d+ bytes")
  vim.wait(300) -- the improvement is written before its event; give the reporter a moment
  vim.cmd("TreeReduceStop")
  result.finished = wait_done(buf)
  result.lines = lines(buf)
"""
    result = run_nvim(tmp_path, body, source)

    assert result["improved"] and result["finished"], result
    kept = "\n".join(result["lines"]) + "\n"
    assert "keep me" in kept and len(kept) < source.stat().st_size, kept
    messages = texts(result)
    assert "treereduce: stopped; kept the best result so far" in messages, messages
    assert not any("lost" in m or "failed" in m for m in messages), messages


def test_nvim_stop_before_a_result_leaves_the_buffer(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text("x = 1\n")
    body = """
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd([[TreeReduce -- sh -c 'sleep 60' sh @@]])
  vim.wait(1500) -- treereduce-py is running the original's test
  vim.cmd("TreeReduceStop")
  result.finished = wait_done(buf)
  result.lines = lines(buf)
"""
    result = run_nvim(tmp_path, body, source)

    assert result["finished"] and result["lines"] == ["x = 1"], result
    assert texts(result, 3) == [
        "treereduce: stopped before the first result; the buffer is unchanged"
    ], result


def test_nvim_edits_made_during_the_run_are_kept(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text("a = 1\nb = 2\nkeep = 3\nc = 4\n")
    body = """
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd([[TreeReduce -- sh -c 'sleep 0.2; grep -q keep "$1"' sh @@]])
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "typed = 5" }) -- the user goes on editing
  result.finished = wait_done(buf)
  result.lines = lines(buf)
  result.windows = #vim.api.nvim_list_wins()
  result.split = lines(vim.api.nvim_get_current_buf())
  result.split_filetype = vim.bo.filetype
"""
    result = run_nvim(tmp_path, body, source)

    assert result["finished"], result
    assert result["lines"] == ["a = 1", "b = 2", "keep = 3", "c = 4", "typed = 5"], result
    assert result["windows"] == 2 and result["split_filetype"] == "python", result
    assert "".join(result["split"]).strip() == "keep", result
    assert any("edited during the reduction" in m for m in texts(result, 3)), result


def test_nvim_without_treereduce_on_path_says_so(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text("keep = 1\n")
    body = """
  vim.cmd([[TreeReduce python3 @@]])
  result.job = vim.b.treereduce_job or vim.NIL
"""
    result = run_nvim(tmp_path, body, source, path=path_without_treereduce())

    assert result["job"] is None, result
    assert texts(result) == [
        "treereduce: cannot run treereduce-py: not found on PATH "
        "(install it, or set g:treereduce_program)"
    ], result


def test_nvim_buffer_without_filetype(tmp_path: Path) -> None:
    named = tmp_path / "prog.py"
    named.write_text("a = 1\nkeep = 2\n")
    # No name and no filetype: reduced as text. A file whose filetype was cleared: its
    # extension names the language.
    body = """
  vim.cmd("enew")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "a = 1", "keep = 2" })
  vim.cmd([[TreeReduce -- grep -q keep @@]])
  result.nameless_finished = wait_done(buf)
  result.nameless = lines(buf)
  vim.cmd("bwipeout!")
  vim.cmd("edit prog.py")
  vim.bo.filetype = ""
  buf = vim.api.nvim_get_current_buf()
  vim.cmd([[TreeReduce -- grep -q keep @@]])
  result.named_finished = wait_done(buf)
  result.named = lines(buf)
"""
    result = run_nvim(tmp_path, body)

    assert result["nameless_finished"] and result["named_finished"], result
    # Nothing names a language: treereduce-py reads the buffer as text (lines, brackets).
    assert "".join(result["nameless"]).strip() == "keep", result
    assert not texts(result, 4), result
    assert "unknown language ''" not in str(result)
    assert "treereduce: reducing 15 bytes of text" in texts(result), result
    assert "treereduce: reducing 15 bytes of python" in texts(result), result
    assert "".join(result["named"]).strip() == "keep", result


def test_nvim_shows_notices(tmp_path: Path) -> None:
    source = tmp_path / "broken.py"
    source.write_text("a = (1,\nkeep = 2\n")
    body = """
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd([[TreeReduce -- grep -q keep @@]])
  result.finished = wait_done(buf)
"""
    result = run_nvim(tmp_path, body, source)

    assert result["finished"], result
    warnings = texts(result, 3)
    assert any("does not parse cleanly as python" in w for w in warnings), result


@pytest.mark.parametrize(
    ("filetype", "language", "text"),
    [
        ("javascriptreact", "javascript", "const a = <p>keep</p>;\nconst b = 1;\n"),
        ("typescriptreact", "tsx", "const a: number = 1;\nconst b = <p>keep</p>;\n"),
    ],
)
def test_nvim_react_filetypes(tmp_path: Path, filetype: str, language: str, text: str) -> None:
    source = tmp_path / "view.txt"
    source.write_text(text)
    body = f"""
  local buf = vim.api.nvim_get_current_buf()
  vim.bo.filetype = "{filetype}"
  vim.cmd([[TreeReduce -- grep -q keep @@]])
  result.finished = wait_done(buf)
  result.lines = lines(buf)
"""
    result = run_nvim(tmp_path, body, source)

    assert result["finished"], result
    assert f"treereduce: reducing {len(text)} bytes of {language}" in texts(result), result
    assert "keep" in "".join(result["lines"]) and not texts(result, 4), result


def test_nvim_arguments_are_split_as_a_shell_splits_them(tmp_path: Path) -> None:
    body = r"""
  local M = dofile([[PLUGIN]])
  result.split = M.split([=[a 'b c'  "d \"e\" $f" g\ h '' "it's" x\\y]=])
  result.unterminated = select(2, M.split([[python3 'oops]]))
  result.languages = M.languages
""".replace("PLUGIN", str(NVIM_PLUGIN))
    result = run_nvim(tmp_path, body)

    assert result["split"] == ["a", "b c", 'd "e" $f', "g h", "", "it's", "x\\y"], result
    assert result["unterminated"] == "unterminated ' in the arguments", result
    # Every filetype the plugin maps is a language treereduce-py accepts.
    for filetype, name in result["languages"].items():
        assert languages.canonical(name) == name, filetype


# ---------------------------------------------------------------------------------------------
# Emacs


def run_emacs(
    tmp_path: Path, file: Path | None, forms: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run Emacs in batch mode with only the plugin loaded, visiting `file`, evaluating `forms`."""
    emacs = editor("emacs", "emacs-nox")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    args = [emacs, "--batch", "-Q", "-l", str(EMACS_PLUGIN)]
    args += [str(file)] if file is not None else []
    return subprocess.run(
        [*args, "--eval", f"(progn {forms})"],
        cwd=tmp_path,
        env=editor_env(home, path),
        capture_output=True,
        text=True,
        timeout=HANG,
        stdin=subprocess.DEVNULL,
    )


def elisp_string(text: str) -> str:
    return json.dumps(text)  # a JSON string of printable ASCII is an Emacs Lisp string too


def test_emacs_reduces_the_buffer_and_undo_restores_it(tmp_path: Path) -> None:
    source = tmp_path / "mean.py"
    source.write_text(MEAN_PY)
    forms = f"""
  (undo-boundary)
  (treereduce-buffer {elisp_string(DIVIDES)})
  (write-region nil nil "reduced.py")
  (undo-boundary)
  (let ((last-command nil)) (undo))
  (write-region nil nil "undone.py")
"""
    proc = run_emacs(tmp_path, source, forms)

    assert proc.returncode == 0, proc.stderr
    reduced = (tmp_path / "reduced.py").read_bytes()
    assert len(reduced) < len(MEAN_PY.encode()) // 2 and reduced.endswith(b"\n"), reduced
    assert raises_zero_division(tmp_path / "reduced.py"), reduced
    assert (tmp_path / "undone.py").read_text() == MEAN_PY
    # Sizes in bytes, as treereduce-py counts them: the file's, not its characters.
    size = len(MEAN_PY.encode())
    assert size != len(MEAN_PY)
    assert f"treereduce: {size} -> {len(reduced) - 1} bytes\n" in proc.stderr, proc.stderr


def test_emacs_region_result_keeps_the_next_line(tmp_path: Path) -> None:
    source = tmp_path / "points.py"
    head = "# café\ndef helper(a, b):\n    unused = 1\n    return a * b\n"
    source.write_text(head + "last = 2\n")
    test = elisp_string("-- grep -q 'a \\* b' @@")
    forms = f"""
  (goto-char (point-min))
  (treereduce-region (point) (progn (forward-line 4) (point)) {test})
  (write-region nil nil "out.py")
"""
    proc = run_emacs(tmp_path, source, forms)

    assert proc.returncode == 0, proc.stderr
    out = (tmp_path / "out.py").read_text()
    *reduced, last = out.splitlines()
    assert last == "last = 2" and "a * b" in "".join(reduced), out
    assert len(out) < len(head), out
    assert f"treereduce: {len(head.encode())} -> " in proc.stderr, proc.stderr


def test_emacs_without_treereduce_on_path_says_so(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text("keep = 1\n")
    # What a user sees of an error: its message (batch mode would add a backtrace).
    forms = """
  (condition-case failure (treereduce-buffer "python3 @@")
    (error (princ (error-message-string failure))))
"""
    proc = run_emacs(tmp_path, source, forms, path=path_without_treereduce())

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "treereduce: cannot run treereduce-py: not found on PATH "
        "(install it, or set ‘treereduce-program’)"
    ), proc.stderr
    assert source.read_text() == "keep = 1\n"


def test_emacs_major_modes_name_languages_treereduce_knows(tmp_path: Path) -> None:
    modes = [
        "rustic-mode", "js2-mode", "tuareg-mode", "makefile-gmake-mode", "python-mode",
        "python-ts-mode", "c++-mode", "sh-mode", "typescript-tsx-mode", "emacs-lisp-mode",
    ]  # fmt: skip
    forms = f"""
  (dolist (mode (append '({" ".join(modes)}) (mapcar #'car treereduce-languages)))
    (let ((major-mode mode)) (princ (format "%s %s\\n" mode (treereduce--language)))))
"""
    proc = run_emacs(tmp_path, None, forms)

    assert proc.returncode == 0, proc.stderr
    named = dict(line.split() for line in proc.stdout.splitlines())
    assert named["rustic-mode"] == "rust" and named["js2-mode"] == "javascript"
    assert named["tuareg-mode"] == "ocaml" and named["makefile-gmake-mode"] == "make"
    for mode, name in named.items():
        assert languages.canonical(name), mode  # raises UnknownLanguage otherwise


def test_emacs_fundamental_mode_uses_the_extension(tmp_path: Path) -> None:
    source = tmp_path / "prog.rs"
    source.write_text("fn f() {}\n")
    forms = "(fundamental-mode) (princ (treereduce--language)) (terpri)"
    proc = run_emacs(tmp_path, source, forms)
    assert proc.stdout == "rs\n" and languages.canonical("rs") == "rust", proc.stderr
