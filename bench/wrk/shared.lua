-- What both load scripts share (dofile'd by replay.lua and rotate.lua): reading a request head,
-- and the result line printed once wrk is done, "BENCH_RESULT " and a JSON object that
-- bench/wrk.ts reads.

-- A request head as lines (the method, the target, then "name: value" headers): method, target
-- and the headers as a table.
function parse_head(lines)
  local headers = {}
  for i = 3, #lines do
    local name, value = lines[i]:match("^([^:]+):%s?(.*)$")
    assert(name, "bad header line: " .. lines[i])
    -- wrk's own Host entry is spelled "Host": replace it with the host the request was signed for.
    if name:lower() == "host" then
      name = "Host"
    end
    headers[name] = value
  end
  return lines[1], lines[2], headers
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,' ..
      '"errors":{"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f},' ..
      '"latencyUs":{"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
