-- Sends many pre-signed requests in turn, one after the other on every connection, as fast as
-- the server answers: a load spread over many keys, as uploads from many clients are.
--
--   wrk -t1 -c32 -d5s -s bench/wrk/rotate.lua http://127.0.0.1:PORT -- HEADS_FILE BODY_FILE
--
-- HEADS_FILE (written by bench/wrk.ts): one request head after another, each the method on its
-- first line, the request target on the second, then one "name: value" header per line, and a
-- line holding only "--" after it. BODY_FILE: the body every request carries (empty for none).
-- Every request is formatted once in init(); request() only hands out the next one, and no
-- response() function is defined, so wrk never gives a response to Lua. done() prints one line,
-- "BENCH_RESULT " and a JSON object, as replay.lua does.

-- parse_head() and done() (shared.lua, beside this script).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "shared.lua")

local formatted = {}
local next_index = 1

local function read_file(path)
  local file = assert(io.open(path, "rb"))
  local text = file:read("*a")
  file:close()
  return text
end

local function format_head(lines, body)
  local method, target, headers = parse_head(lines)
  return wrk.format(method, target, headers, body)
end

function init(args)
  local body = read_file(args[2])
  if #body == 0 then
    body = nil
  end
  local lines = {}
  for line in read_file(args[1]):gmatch("[^\n]+") do
    if line == "--" then
      formatted[#formatted + 1] = format_head(lines, body)
      lines = {}
    else
      lines[#lines + 1] = line
    end
  end
  assert(#formatted > 0, "no request in " .. args[1])
end

function request()
  local chosen = formatted[next_index]
  next_index = next_index % #formatted + 1
  return chosen
end
