-- wrk: durable sign-ins, each with its own token (a token signs in once). The bodies come from
-- `vouch-benchmark prepare` (one JSON object per line, path in $SIGNINS); thread i sends lines
-- i, i+n, i+2n, ... When a thread runs out it sends GET /health instead, and the counts printed
-- at the end say how many sign-ins there really were. With CYCLE=1 (the bare app's sign-in
-- floor, which keeps no record of a token) a thread starts its lines again instead.
--
-- wrk calls request() once more in thread 0's state before the run, only to check that it makes
-- a valid request (script_verify_request); that call is answered with the next body without
-- taking it, or the body would be lost and one prepared sign-in never sent.
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
  cycle = os.getenv("CYCLE") == "1"
  verified = false
  created = 0
  refused = 0
  exhausted = 0
end

function request()
  local body = bodies[index]
  if not verified then
    verified = true
    if id == 0 then return wrk.format("POST", "/sessions", {["Content-Type"] = "application/json"}, body or "{}") end
  end
  if body == nil and cycle and #bodies > 0 then
    index = 1
    body = bodies[index]
  end
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
