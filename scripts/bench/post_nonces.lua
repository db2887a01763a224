-- wrk: POST /nonces with no body (the client API's cheapest call, and the bare app's only route).
wrk.method = "POST"
