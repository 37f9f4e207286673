-- treereduce-py in Neovim (0.7 or newer): reduce the current buffer in the background.
--
--   :TreeReduce [OPTIONS --] CMD ARGS...    replace the buffer with the reduced program (undo: u)
--   :TreeReduce! [OPTIONS --] CMD ARGS...   open the reduced program in a new split instead
--   :TreeReduceStop                         stop the running reduction (its best result is kept)
--
-- Without `--` the arguments are the test command and --same-crash is used, so
-- `:TreeReduce rustc --crate-type lib @@.rs` needs no script. With `--`, what comes before it are
-- treereduce-py options: `:TreeReduce --exit-code 1 --stderr-regex KeyError -- python3 @@`.
-- The buffer goes to treereduce-py on stdin; the result comes back on stdout; the JSON progress
-- events on stderr are shown in the message area. Put this file in ~/.config/nvim/plugin/.

local M = {}

-- Neovim filetypes whose tree-sitter language name differs.
M.languages = { cs = "csharp", sh = "bash", typescriptreact = "tsx" }

local function message(text, level)
  vim.schedule(function()
    vim.notify("treereduce: " .. text, level or vim.log.levels.INFO)
  end)
end

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

function M.reduce(opts)
  local buf = vim.api.nvim_get_current_buf()
  if vim.b[buf].treereduce_job then
    return message("a reduction is already running in this buffer", vim.log.levels.WARN)
  end
  local ft = vim.bo[buf].filetype
  local cmd = { "treereduce-py", "-", "-l", M.languages[ft] or ft, "-o", "-", "--json" }
  if not vim.tbl_contains(opts.fargs, "--") then
    vim.list_extend(cmd, { "--same-crash", "--" })
  end
  vim.list_extend(cmd, opts.fargs)
  local stdout, errors, partial = {}, {}, ""
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
  local job = vim.fn.jobstart(cmd, {
    stdout_buffered = true,
    on_stdout = function(_, data)
      stdout = data
    end,
    on_stderr = on_stderr,
    on_exit = function(_, code)
      vim.b[buf].treereduce_job = nil
      on_line(partial)
      if code ~= 0 then
        local why = #errors > 0 and table.concat(errors, "\n") or ("exit code " .. code)
        return message("failed: " .. why, vim.log.levels.ERROR)
      end
      -- jobstart splits at newlines: a final "" means the output ended with one.
      if stdout[#stdout] == "" then
        table.remove(stdout)
      end
      if opts.bang then
        vim.cmd("new")
        vim.bo.filetype = ft
        vim.bo.buftype = "nofile"
        vim.api.nvim_buf_set_lines(0, 0, -1, false, stdout)
      else
        vim.api.nvim_buf_set_lines(buf, 0, -1, false, stdout)
      end
    end,
  })
  if job <= 0 then
    return message("cannot start treereduce-py (is it on PATH?)", vim.log.levels.ERROR)
  end
  vim.b[buf].treereduce_job = job
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  table.insert(lines, "") -- chansend joins the list with newlines: this ends the last line
  vim.fn.chansend(job, lines)
  vim.fn.chanclose(job, "stdin")
end

vim.api.nvim_create_user_command("TreeReduce", M.reduce, { nargs = "+", bang = true })
vim.api.nvim_create_user_command("TreeReduceStop", function()
  local job = vim.b.treereduce_job
  if job then
    vim.fn.jobstop(job)
  end
end, {})

return M
