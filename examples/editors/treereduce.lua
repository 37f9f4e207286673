-- treereduce-py in Neovim (0.7 or newer): reduce the current buffer in the background.
--
--   :TreeReduce [OPTIONS --] CMD ARGS...    replace the buffer with the reduced program (undo: u)
--   :TreeReduce! [OPTIONS --] CMD ARGS...   open the reduced program in a new split instead
--   :TreeReduceStop                         stop the running reduction, keeping its best result
--
-- Without `--` the arguments are the test command and --same-crash is used, so
-- `:TreeReduce rustc --crate-type lib @@.rs` needs no script. With `--`, what comes before it are
-- treereduce-py options: `:TreeReduce --exit-code 1 --stderr-regex 'Key Error' -- python3 @@`.
-- Arguments are split as a shell splits them: quote ('...' or "...") one that holds spaces.
-- The buffer goes to treereduce-py on stdin; the best result so far is kept in a temporary file
-- (so a stopped run keeps it); the JSON progress events on stderr are shown as messages. If the
-- buffer is edited while the reduction runs, the result goes to a new split instead of over the
-- edits. Put this file in ~/.config/nvim/plugin/; set g:treereduce_program to use another
-- executable than the treereduce-py on PATH.

local M = {}

-- The running reductions, by job id (what :TreeReduceStop marks as stopped).
local runs = {}

-- Neovim filetypes whose name treereduce-py does not know (it knows most, and `sh`, `cs`, ...).
M.languages = { javascriptreact = "javascript", typescriptreact = "tsx" }

local function message(text, level)
  vim.schedule(function()
    vim.notify("treereduce: " .. text, level or vim.log.levels.INFO)
  end)
end

-- Split a command line into words as a POSIX shell quotes them: '...' keeps every character,
-- "..." all but the backslash escapes \" \\ \$ \`, and outside quotes a backslash keeps the next
-- character. Returns nil and the reason for an unterminated quote.
function M.split(text)
  local words, word, quote, i = {}, nil, nil, 1
  while i <= #text do
    local c = text:sub(i, i)
    if quote == "'" then
      if c == "'" then
        quote = nil
      else
        word = word .. c
      end
    elseif quote == '"' then
      local after = text:sub(i + 1, i + 1)
      if c == '"' then
        quote = nil
      elseif c == "\\" and after:match('["\\$`]') then
        word, i = word .. after, i + 1
      else
        word = word .. c
      end
    elseif c:match("%s") then
      if word then
        table.insert(words, word)
        word = nil
      end
    elseif c == "'" or c == '"' then
      quote, word = c, word or ""
    elseif c == "\\" and i < #text then
      word, i = (word or "") .. text:sub(i + 1, i + 1), i + 1
    else
      word = (word or "") .. c
    end
    i = i + 1
  end
  if quote then
    return nil, "unterminated " .. quote .. " in the arguments"
  end
  if word then
    table.insert(words, word)
  end
  return words
end

-- The `-l LANG` to pass: none when the options name the language; the buffer's filetype; else
-- the file name's extension (treereduce-py knows them); else none, and treereduce-py looks at
-- the first line (`#!`, `<?php`, ...).
local function language_args(buf, options)
  for _, word in ipairs(options) do
    if word == "-l" or word:match("^%-%-lang") or word:match("^%-l.") then
      return {}
    end
  end
  local ft = vim.bo[buf].filetype:match("^[^.]*") -- a compound filetype: its first part
  if ft ~= "" then
    return { "-l", M.languages[ft] or ft }
  end
  local extension = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":e")
  return extension ~= "" and { "-l", extension } or {}
end

-- One line of treereduce-py's stderr: shows progress, returns the text of an error (or nil).
local function progress(line)
  local ok, event = pcall(vim.fn.json_decode, line)
  if not ok or type(event) ~= "table" then
    if line == "" or line:find("^treereduce%-py: crash signature: ") then
      return nil -- also in the start event
    end
    return line -- not JSON: an error message from treereduce-py
  end
  local stats = event.stats
  if event.event == "error" then
    return table.concat(vim.list_extend({ event.message }, event.details or {}), "\n")
  elseif event.event == "notice" then
    message(event.message, vim.log.levels.WARN)
  elseif event.event == "start" then
    -- Check the signature: a test that fails the same way on any input reduces to nothing.
    local signature = type(event.signature) == "string" and ("; keeping " .. event.signature) or ""
    message(("reducing %d bytes of %s%s"):format(event.original_size, event.language, signature))
  elseif (event.event == "improvement" or event.event == "done") and stats then
    message(("%d -> %d bytes, %d tests, %.1f s%s"):format(stats.original_size, stats.size,
      stats.tests, stats.elapsed, event.reason and (", " .. event.reason) or ""))
  end
  return nil
end

-- Show `lines` in a new scratch split, in filetype `ft`.
local function show_in_split(lines, ft)
  vim.cmd("new")
  vim.bo.buftype = "nofile"
  vim.bo.filetype = ft
  vim.api.nvim_buf_set_lines(0, 0, -1, false, lines)
end

-- The run ended: put its result where it belongs, or say why there is none.
local function deliver(run, code, errors)
  -- :TreeReduceStop (SIGTERM, then SIGKILL if it lingers) or an interrupt: the best so far.
  local stopped = run.stopped or code == 130
  local lines = vim.fn.filereadable(run.output) == 1 and vim.fn.readfile(run.output, "b") or nil
  vim.fn.delete(run.dir, "rf")
  if stopped and not lines then
    return message("stopped before the first result; the buffer is unchanged", vim.log.levels.WARN)
  elseif not lines or (code ~= 0 and not stopped) then
    local why = #errors > 0 and table.concat(errors, "\n") or ("exit code " .. code)
    if run.guessed and why:find("language") then
      why = why .. " (the buffer has no 'filetype': set one, or give -l LANG before --)"
    end
    return message("failed: " .. why, vim.log.levels.ERROR)
  end
  if lines[#lines] == "" then
    table.remove(lines) -- readfile "b" adds an empty item when the file ends with a newline
  end
  local buf = run.buf
  if vim.deep_equal(lines, run.lines) then
    return message(stopped and "stopped before anything was removed; the buffer is unchanged"
      or "nothing could be removed; the buffer is unchanged")
  end
  local kept = stopped and "stopped; kept the best result so far" or nil
  if run.bang then
    show_in_split(lines, run.ft)
  elseif not vim.api.nvim_buf_is_valid(buf) or vim.api.nvim_buf_get_changedtick(buf) ~= run.tick then
    -- Edits made while it ran are not overwritten: the result goes beside them.
    show_in_split(lines, run.ft)
    return message((kept and (kept .. "; ") or "") ..
      "the buffer was edited during the reduction: the result is in a new split",
      vim.log.levels.WARN)
  else
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end
  if kept then
    message(kept, vim.log.levels.WARN)
  end
end

function M.reduce(opts)
  local buf = vim.api.nvim_get_current_buf()
  if vim.b[buf].treereduce_job then
    return message("a reduction is already running in this buffer", vim.log.levels.WARN)
  end
  local program = vim.g.treereduce_program or "treereduce-py"
  if vim.fn.executable(program) ~= 1 then
    return message(("cannot run %s: not found on PATH (install it, or set g:treereduce_program)")
      :format(program), vim.log.levels.ERROR)
  end
  local words, bad = M.split(opts.args)
  if not words then
    return message(bad, vim.log.levels.ERROR)
  end
  local cut = vim.fn.index(words, "--")
  local options = cut < 0 and {} or vim.list_slice(words, 1, cut)
  local lang = language_args(buf, options)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local run = {
    buf = buf,
    bang = opts.bang,
    ft = vim.bo[buf].filetype,
    dir = dir,
    output = dir .. "/reduced",
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    tick = vim.api.nvim_buf_get_changedtick(buf),
    guessed = vim.bo[buf].filetype == "",
  }
  local cmd = vim.list_extend({ program, "-" }, lang)
  vim.list_extend(cmd, { "-o", run.output, "--json" })
  if cut < 0 then
    vim.list_extend(cmd, { "--same-crash", "--" })
  end
  vim.list_extend(cmd, words)
  local errors, partial = {}, ""
  local function on_line(line)
    local err = progress(line)
    if err then
      table.insert(errors, err)
    end
  end
  -- Output arrives in chunks: the first item continues the last line, the last may be partial.
  local function on_stderr(_, data)
    data[1] = partial .. data[1]
    partial = table.remove(data)
    for _, line in ipairs(data) do
      on_line(line)
    end
  end
  local started, job = pcall(vim.fn.jobstart, cmd, {
    on_stderr = on_stderr,
    on_exit = function(id, code)
      runs[id] = nil
      if vim.api.nvim_buf_is_valid(buf) then
        vim.b[buf].treereduce_job = nil
      end
      on_line(partial)
      deliver(run, code, errors)
    end,
  })
  if not started or job <= 0 then
    vim.fn.delete(dir, "rf")
    return message(("cannot start %s: %s"):format(program, started and job or tostring(job)),
      vim.log.levels.ERROR)
  end
  vim.b[buf].treereduce_job = job
  runs[job] = run
  local lines = vim.list_extend({}, run.lines)
  table.insert(lines, "") -- chansend joins the list with newlines: this ends the last line
  vim.fn.chansend(job, lines)
  vim.fn.chanclose(job, "stdin")
end

vim.api.nvim_create_user_command("TreeReduce", M.reduce, { nargs = "+", bang = true })
vim.api.nvim_create_user_command("TreeReduceStop", function()
  local job = vim.b.treereduce_job
  if job then
    if runs[job] then
      runs[job].stopped = true
    end
    vim.fn.jobstop(job) -- SIGTERM: treereduce-py writes its best so far and exits 130
  else
    message("no reduction is running in this buffer", vim.log.levels.WARN)
  end
end, {})

return M
