#!/usr/bin/env bash
# The secrets of the secure compose variant (docker-compose.secure.yml), generated here so that it
# starts with two commands (compose/README.md, "The secure variant"):
#
#   compose/make-secrets.sh
#   docker compose -p ax -f compose/docker-compose.yml -f compose/docker-compose.secure.yml \
#     --env-file compose/secrets/compose.env up -d --build
#
# Writes into compose/secrets/ (git ignores it), or into the directory given as the first argument:
#   ca.key, ca.crt            a private CA (10 years) that signs the two server certificates
#   ax_ca_truststore          ca.crt as a PKCS12 trust store WITHOUT password (no MAC, certificate
#                             not encrypted): every AX process (Kafka ssl.truststore.location,
#                             Connector/J trustCertificateKeyStoreUrl) and the broker read it
#   kafka_keystore            the broker's key and certificate (PKCS12; SAN kafka, localhost,
#                             127.0.0.1), kafka_keystore_password its password
#   mysql_server_cert, mysql_server_key
#                             MySQL's certificate (SAN mysql) and key; ax_ca_cert = ca.crt for it
#   kafka_server_jaas         the broker's JAAS file: SASL/PLAIN users admin and ax-<stage>
#   kafka_jaas_<user>         per user the sasl.jaas.config line its clients read
#                             (AX_KAFKA_SASL_JAAS_CONFIG_FILE)
#   kafka_admin_client_properties  the admin's client properties (broker healthcheck, kafka-*.sh)
#   db_root_password, db_migrate_password, db_app_password, grafana_admin_password
#   compose.env               placeholders for the variables docker-compose.yml requires: the
#                             secure variant takes every password from the files above instead
#
# Needs bash, openssl and keytool (a JDK 17 or later). An existing directory is left alone
# (rotation: compose/README.md); --force replaces everything in it.
set -euo pipefail

force=false
if [ "${1:-}" = "--force" ]; then
  force=true
  shift
fi
dir=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/secrets"}
for tool in openssl keytool; do
  if ! command -v "$tool" > /dev/null; then
    echo "make-secrets.sh: $tool is missing (openssl; keytool comes with a JDK)" >&2
    exit 2
  fi
done
if [ -e "$dir/ca.crt" ] && [ "$force" != true ]; then
  echo "make-secrets.sh: $dir holds secrets already; give --force to replace them all" >&2
  exit 1
fi

# Every Kafka user: the admin (super user, the ACL init service) and one per AX process.
kafka_users=(admin ax-ingest ax-ticker ax-dispatcher ax-retry ax-deadletter ax-resolver
  ax-cli-operator)

umask 077
mkdir -p "$dir"
chmod 700 "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

password() {
  # 32 characters of [A-Za-z0-9]: nothing a JAAS line, a properties file or SQL must escape.
  openssl rand -base64 48 | tr -dc 'A-Za-z0-9' | head -c 32
}

server_cert() { # name, subjectAltName
  openssl req -new -newkey rsa:2048 -nodes -subj "/CN=$1" \
    -keyout "$work/$1.key" -out "$work/$1.csr" 2> /dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n' \
    "$2" > "$work/$1.ext"
  openssl x509 -req -in "$work/$1.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
    -days 825 -sha256 -extfile "$work/$1.ext" -out "$work/$1.crt" 2> /dev/null
}

# The CA.
openssl req -x509 -new -newkey rsa:3072 -nodes -sha256 -days 3650 -subj "/CN=AX compose CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout "$dir/ca.key" -out "$dir/ca.crt" 2> /dev/null
cp "$dir/ca.crt" "$dir/ax_ca_cert"

# The trust store: only the CA's (public) certificate, so no password; its integrity is the
# file's, as for any CA file. Java reads it with or without a password.
rm -f "$dir/ax_ca_truststore"
keytool -importcert -noprompt -alias ax-ca -file "$dir/ca.crt" -storetype PKCS12 \
  -keystore "$dir/ax_ca_truststore" -storepass "$(password)" \
  -J-Dkeystore.pkcs12.certProtectionAlgorithm=NONE -J-Dkeystore.pkcs12.macAlgorithm=NONE \
  > /dev/null 2>&1

# The broker: its key and certificate in a PKCS12 key store with a random password.
server_cert kafka "DNS:kafka,DNS:localhost,IP:127.0.0.1"
password > "$dir/kafka_keystore_password"
openssl pkcs12 -export -name kafka -inkey "$work/kafka.key" -in "$work/kafka.crt" \
  -certfile "$dir/ca.crt" -out "$dir/kafka_keystore" \
  -passout "file:$dir/kafka_keystore_password"

# MySQL: PEM certificate and key, read by mysqld (--ssl-cert, --ssl-key).
server_cert mysql "DNS:mysql"
cp "$work/mysql.crt" "$dir/mysql_server_cert"
cp "$work/mysql.key" "$dir/mysql_server_key"

# Kafka users (SASL/PLAIN over TLS): the broker's JAAS file lists them all; each user's client
# line goes in its own file, mounted into its own service only.
declare -A kafka_password
for user in "${kafka_users[@]}"; do
  kafka_password[$user]=$(password)
  printf 'org.apache.kafka.common.security.plain.PlainLoginModule required username="%s" password="%s";\n' \
    "$user" "${kafka_password[$user]}" > "$dir/kafka_jaas_$user"
done
{
  echo "KafkaServer {"
  echo "  org.apache.kafka.common.security.plain.PlainLoginModule required"
  # The broker's own identity toward itself (inter-broker and controller listeners).
  echo "  username=\"admin\" password=\"${kafka_password[admin]}\""
  for user in "${kafka_users[@]}"; do
    echo "  user_$user=\"${kafka_password[$user]}\""
  done
  echo "  ;"
  echo "};"
} > "$dir/kafka_server_jaas"
{
  echo "security.protocol=SASL_SSL"
  echo "sasl.mechanism=PLAIN"
  echo "sasl.jaas.config=$(cat "$dir/kafka_jaas_admin")"
  echo "ssl.truststore.location=/run/secrets/ax_ca_truststore"
  echo "ssl.truststore.type=PKCS12"
} > "$dir/kafka_admin_client_properties"

for name in db_root_password db_migrate_password db_app_password grafana_admin_password; do
  password > "$dir/$name"
done

# docker-compose.yml requires these variables; the secure override replaces every use of them by
# the files above, so they only need a value.
{
  echo "# Placeholders: docker-compose.secure.yml takes every password from compose/secrets/."
  for name in DB_ROOT_PASSWORD DB_MIGRATE_PASSWORD DB_APP_PASSWORD GRAFANA_ADMIN_PASSWORD; do
    echo "$name=unused-see-compose-secrets"
  done
} > "$dir/compose.env"

# Bind-mounted into containers that run as other users (kafka: appuser, mysql: mysql, AX: ax):
# readable files in a directory only its owner may enter. The CA key is needed again only to
# sign new server certificates.
chmod 644 "$dir"/*
chmod 600 "$dir/ca.key" "$dir/compose.env"
rm -f "$dir/ca.srl"
echo "make-secrets.sh: wrote the CA, the broker's and MySQL's certificates, the trust store and"
echo "the passwords of ${kafka_users[*]} and the database into $dir"
