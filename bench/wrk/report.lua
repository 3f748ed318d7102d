-- The result line both load scripts print once wrk is done (dofile'd by replay.lua and
-- rotate.lua): "BENCH_RESULT " and a JSON object that bench/wrk.ts reads.

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
