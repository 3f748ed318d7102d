-- Replays one pre-signed request on every connection, as fast as the server answers.
--
--   wrk -t1 -c32 -d5s -s bench/wrk/replay.lua http://127.0.0.1:PORT -- REQUEST_FILE
--
-- REQUEST_FILE (written by bench/wrk.ts): the method on the first line, the request target on
-- the second, then one "name: value" header per line, an empty line, and the body bytes (nothing
-- for no body). wrk adds Content-Length itself, so the file must not hold one. The request is
-- formatted once per thread in init() and no request() or response() function is defined, so
-- wrk sends the same bytes each time and never hands a response to Lua: the load generator
-- spends its CPU on HTTP only. done() prints one line, "BENCH_RESULT " and a JSON object.

-- parse_head() and done() (shared.lua, beside this script).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "shared.lua")

local function read_request(path)
  local file = assert(io.open(path, "rb"))
  local text = file:read("*a")
  file:close()
  local split = assert(text:find("\n\n", 1, true), "no empty line after the headers in " .. path)
  local head, body = text:sub(1, split - 1), text:sub(split + 2)
  local lines = {}
  for line in head:gmatch("[^\n]+") do
    lines[#lines + 1] = line
  end
  local method, target, headers = parse_head(lines)
  return method, target, headers, (#body > 0) and body or nil
end

function init(args)
  wrk.method, wrk.path, wrk.headers, wrk.body = read_request(args[1])
end
