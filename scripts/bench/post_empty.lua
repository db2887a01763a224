-- wrk: a POST with no body (the headers come from wrk's -H).
wrk.method = "POST"
