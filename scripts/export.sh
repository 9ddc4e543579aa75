#!/usr/bin/env bash
# Exports what edgeaudit reads, as one bundle document (DESIGN §1.2), with
# bash and curl only:
#
#   CLOUDFLARE_API_TOKEN=… scripts/export.sh ACCOUNT_ID OUT_DIR [ZONE_ID...]
#
# writes OUT_DIR/account.json: the account's load-balancing pools and
# notification policies and, for each ZONE_ID, its certificate packs, custom
# certificates, custom hostnames, Total TLS and Universal SSL settings and CAA
# records. Every list is read page by page until `result_info.total_pages`, and
# the pages are kept as they came (an array of envelopes), so that edgeaudit
# can tell a complete export from a cut one (EX001). Certificate packs and
# custom certificates are asked for with `status=all`: the API hides inactive
# ones otherwise. CLOUDFLARE_API_BASE defaults to the v4 API.
# It stops at the first answer whose `success` is not true.
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: CLOUDFLARE_API_TOKEN=… $0 ACCOUNT_ID OUT_DIR [ZONE_ID...]" >&2
  exit 2
fi
: "${CLOUDFLARE_API_TOKEN:?set CLOUDFLARE_API_TOKEN to a token that may read load balancing, notifications, SSL and DNS}"
API="${CLOUDFLARE_API_BASE:-https://api.cloudflare.com/client/v4}"
account="$1"
out="$2"
shift 2
mkdir -p "$out"

# get PATH: one answer, checked.
get() {
  local answer
  if ! answer=$(curl -sS "$API$1" -H "Authorization: Bearer $CLOUDFLARE_API_TOKEN"); then
    echo "export: no answer from $API$1" >&2
    exit 1
  fi
  local compact="${answer//[[:space:]]/}"
  if [[ "$compact" != *'"success":true'* ]]; then
    echo "export: $1: the API answered: $answer" >&2
    exit 1
  fi
  printf '%s' "$answer"
}

# pages PATH PER_PAGE [QUERY]: every page of a list, as a JSON array of envelopes.
pages() {
  local path="$1" per_page="$2" query="${3:-}" page=1 total=1 answer sep=""
  printf '['
  while [ "$page" -le "$total" ]; do
    answer=$(get "$path?per_page=$per_page&page=$page$query")
    printf '%s%s' "$sep" "$answer"
    sep=","
    # total_pages from result_info; a list without it is one page.
    if [[ "$answer" =~ \"total_pages\"[[:space:]]*:[[:space:]]*([0-9]+) ]]; then
      total="${BASH_REMATCH[1]}"
    fi
    page=$((page + 1))
  done
  printf ']'
}

{
  printf '{"account_id":"%s",\n' "$account"
  printf '"pools":%s,\n' "$(pages "/accounts/$account/load_balancers/pools" 25)"
  printf '"notification_policies":%s,\n' "$(pages "/accounts/$account/alerting/v3/policies" 25)"
  printf '"zones":['
  sep=""
  for zone in "$@"; do
    printf '%s{"zone_id":"%s",\n' "$sep" "$zone"
    printf '"certificate_packs":%s,\n' "$(pages "/zones/$zone/ssl/certificate_packs" 50 "&status=all")"
    printf '"custom_certificates":%s,\n' "$(pages "/zones/$zone/custom_certificates" 50 "&status=all")"
    printf '"custom_hostnames":%s,\n' "$(pages "/zones/$zone/custom_hostnames" 50)"
    printf '"total_tls":%s,\n' "$(get "/zones/$zone/acm/total_tls")"
    printf '"universal_ssl":%s,\n' "$(get "/zones/$zone/ssl/universal/settings")"
    printf '"dns_records":%s}\n' "$(pages "/zones/$zone/dns_records" 100 "&type=CAA")"
    sep=","
  done
  printf ']}\n'
} > "$out/account.json.part"
mv "$out/account.json.part" "$out/account.json"
echo "export: wrote $out/account.json" >&2
