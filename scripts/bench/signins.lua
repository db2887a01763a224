-- wrk: durable sign-ins, each with its own token (a token signs in once). The bodies come from
-- `vouch-benchmark prepare` (one JSON object per line, path in $SIGNINS); thread i sends lines
-- i, i+n, i+2n, ... When a thread runs out it sends GET /health instead, and the counts printed
-- at the end say how many sign-ins there really were.
local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  table.insert(threads, thread)
  counter = counter + 1
end

function init(args)
  bodies = {}
  local i = 0
  for line in io.lines(os.getenv("SIGNINS")) do
    if i % tonumber(os.getenv("THREADS")) == id then table.insert(bodies, line) end
    i = i + 1
  end
  index = 1
  created = 0
  refused = 0
  exhausted = 0
end

function request()
  local body = bodies[index]
  if body == nil then
    exhausted = exhausted + 1
    return wrk.format("GET", "/health")
  end
  index = index + 1
  return wrk.format("POST", "/sessions", {["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  if status == 201 then created = created + 1 elseif status ~= 200 then refused = refused + 1 end
end

function done(summary, latency, requests)
  local c, r, e = 0, 0, 0
  for _, thread in ipairs(threads) do
    c = c + thread:get("created")
    r = r + thread:get("refused")
    e = e + thread:get("exhausted")
  end
  io.write(string.format("signins created=%d refused=%d exhausted=%d\n", c, r, e))
end
