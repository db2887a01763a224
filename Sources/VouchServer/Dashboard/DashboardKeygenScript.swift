/// The key generator: WebCrypto makes an RSASSA-PKCS1-v1_5 2048-bit pair with SHA-256 in the
/// browser; only the public key (SPKI PEM) is posted to the dashboard; the private key (PKCS #8
/// PEM) is shown once on the page and offered as a download, and is never sent anywhere.
enum DashboardKeygenScript {
    static let source = """
        "use strict";
        (function () {
          var panel = document.getElementById("keygen");
          var form = document.getElementById("upload-key");
          if (!panel || !form || !window.crypto || !window.crypto.subtle) { return; }
          panel.hidden = false;
          var button = document.getElementById("generate-key");
          var status = document.getElementById("keygen-status");
          var result = document.getElementById("keygen-result");
          var privateArea = document.getElementById("private-key");
          var keyIdField = document.getElementById("generated-key-id");

          function pem(label, buffer) {
            var bytes = new Uint8Array(buffer), binary = "";
            for (var i = 0; i < bytes.length; i++) { binary += String.fromCharCode(bytes[i]); }
            var body = btoa(binary).replace(/(.{64})/g, "$1\\n");
            if (body.charAt(body.length - 1) !== "\\n") { body += "\\n"; }
            return "-----BEGIN " + label + "-----\\n" + body + "-----END " + label + "-----\\n";
          }

          button.addEventListener("click", async function () {
            button.disabled = true;
            status.textContent = "Generating…";
            try {
              var pair = await window.crypto.subtle.generateKey(
                { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
                true, ["sign", "verify"]);
              var publicPEM = pem("PUBLIC KEY", await window.crypto.subtle.exportKey("spki", pair.publicKey));
              var privatePEM = pem("PRIVATE KEY", await window.crypto.subtle.exportKey("pkcs8", pair.privateKey));
              var body = new URLSearchParams();
              body.set("csrf", form.elements.csrf.value);
              body.set("public_key", publicPEM);
              status.textContent = "Uploading the public key…";
              var response = await fetch(form.action, {
                method: "POST", body: body, credentials: "same-origin",
                headers: { "Accept": "application/json" }
              });
              var answer = await response.json().catch(function () { return {}; });
              if (!response.ok) { throw new Error(answer.message || ("The server answered " + response.status)); }
              privateArea.value = privatePEM;
              keyIdField.textContent = answer.id;
              result.hidden = false;
              status.textContent = "Key " + answer.id + " added. Save the private key now: reload the page to see the key in the list.";
              privateArea.focus();
              privateArea.select();
            } catch (error) {
              status.textContent = "Could not add a generated key: " + error.message;
              button.disabled = false;
            }
          });

          document.getElementById("download-private-key").addEventListener("click", function () {
            var blob = new Blob([privateArea.value], { type: "application/x-pem-file" });
            var link = document.createElement("a");
            link.href = URL.createObjectURL(blob);
            link.download = "vouch-" + (keyIdField.textContent.split("/").pop() || "key") + "-private.pem";
            document.body.appendChild(link);
            link.click();
            setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
          });
        })();
        """
}
