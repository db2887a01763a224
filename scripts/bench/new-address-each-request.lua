-- POST /nonces from a new client address every request (X-Forwarded-For behind a trusted proxy).
wrk.method = "POST"
local thread_id = 0
setup = function(thread) thread_id = thread_id + 1; thread:set("tid", thread_id) end
init = function(args) math.randomseed(os.time() * 1000 + (tid or 0)) end
request = function()
  local addr = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format(nil, "/nonces", {["X-Forwarded-For"] = addr})
end
