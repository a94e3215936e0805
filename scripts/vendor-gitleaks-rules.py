#!/usr/bin/env python3
"""Vendor a subset of gitleaks' default rules (MIT) into
core/src/privacy/rules/gitleaks.toml, verbatim: the global allowlist (its
`regexes` and `stopwords`; `paths` do not apply to session text) and the
`[[rules]]` sections whose ids are in IDS, each kept as gitleaks wrote it.

Usage: scripts/vendor-gitleaks-rules.py GITLEAKS_CHECKOUT COMMIT
(the checkout's config/gitleaks.toml at COMMIT; see the header it writes).
"""
import re
import subprocess
import sys

# Cloud keys, tokens, private keys, connection strings (URLs with
# credentials), Authorization headers (curl), high-entropy assignments
# (generic-api-key). Issue 30 item 2.
IDS = [
    "aws-access-token", "gcp-api-key", "azure-ad-client-secret", "alibaba-access-key-id",
    "digitalocean-pat", "digitalocean-access-token", "heroku-api-key-v2", "cloudflare-origin-ca-key",
    "github-pat", "github-fine-grained-pat", "github-oauth", "github-app-token", "github-refresh-token",
    "gitlab-pat", "gitlab-pat-routable", "gitlab-ptt", "gitlab-rrt",
    "slack-bot-token", "slack-user-token", "slack-app-token", "slack-webhook-url",
    "stripe-access-token", "openai-api-key", "anthropic-api-key", "anthropic-admin-api-key",
    "huggingface-access-token", "perplexity-api-key", "sendgrid-api-token", "twilio-api-key",
    "npm-access-token", "pypi-upload-token", "databricks-api-token", "vault-service-token",
    "telegram-bot-api-token", "shopify-access-token", "postman-api-token",
    "grafana-service-account-token", "sidekiq-sensitive-url",
    "jwt", "private-key", "curl-auth-header", "curl-auth-user", "generic-api-key",
]

repo, commit = sys.argv[1], sys.argv[2]
text = subprocess.run(["git", "-C", repo, "show", f"{commit}:config/gitleaks.toml"], check=True, capture_output=True, text=True).stdout
head, *sections = re.split(r"^(?=\[\[rules\]\]\n)", text, flags=re.M)
by_id = {}
for sec in sections:
    m = re.search(r"^id = \"([^\"]+)\"", sec, flags=re.M)
    by_id[m.group(1)] = sec.rstrip("\n") + "\n"
missing = [i for i in IDS if i not in by_id]
if missing:
    sys.exit(f"not in gitleaks.toml: {missing}")
# The global allowlist without `paths` (no file paths in session text).
allow = re.search(r"^\[allowlist\]\n.*?(?=^\[\[rules\]\]|\Z)", head, flags=re.M | re.S).group(0)
allow = re.sub(r"^paths = \[\n.*?^\]\n", "", allow, flags=re.M | re.S)
out = [
    "# A subset of gitleaks' default rules, verbatim (the `[[rules]]` sections\n",
    "# whose ids scripts/vendor-gitleaks-rules.py lists, and the global allowlist\n",
    "# without its `paths`).\n",
    f"# Source: https://github.com/gitleaks/gitleaks config/gitleaks.toml at {commit}\n",
    "# Copyright (c) 2019 Zachary Rice. MIT License:\n",
    "#   Permission is hereby granted, free of charge, to any person obtaining a copy\n",
    "#   of this software and associated documentation files (the \"Software\"), to deal\n",
    "#   in the Software without restriction, including without limitation the rights\n",
    "#   to use, copy, modify, merge, publish, distribute, sublicense, and/or sell\n",
    "#   copies of the Software, and to permit persons to whom the Software is\n",
    "#   furnished to do so, subject to the following conditions:\n",
    "#   The above copyright notice and this permission notice shall be included in all\n",
    "#   copies or substantial portions of the Software.\n",
    "#   THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR\n",
    "#   IMPLIED. (Full text: LICENSE in the gitleaks repository.)\n\n",
    allow.rstrip("\n") + "\n\n",
]
out += [by_id[i] + "\n" for i in IDS]
open("core/src/privacy/rules/gitleaks.toml", "w").write("".join(out).rstrip("\n") + "\n")
print(f"{len(IDS)} rules written")
