-- wrk: a POST of the form body in the FORM environment variable (RFC 7662's token=…).
wrk.method = "POST"
wrk.body = os.getenv("FORM")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
