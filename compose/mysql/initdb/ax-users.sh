# The AX database users of the compose deployment. The mysql image runs the files of
# /docker-entrypoint-initdb.d once, on the first start of an empty data volume, after it created
# MYSQL_DATABASE (ax) and before the server listens on the network. A .sql file cannot read the
# environment, so this is a script; it is not executable on purpose: the image then sources it,
# and it runs its SQL through the image's own docker_process_sql (as root, over the socket, the
# statements on stdin, so no password shows in a process list).
#
#   AX_DB_MIGRATE_USER / DB_MIGRATE_PASSWORD  the schema owner: every privilege on schema ax and
#                                                none elsewhere; `ax migrate` (the migrate service)
#   AX_DB_APP_USER / DB_APP_PASSWORD          the stages: SELECT, INSERT, UPDATE, DELETE on
#                                                schema ax; no DDL (they run with AX_DB_MIGRATE=false)
#   DB_MIGRATE_PASSWORD_FILE, DB_APP_PASSWORD_FILE  instead of the two passwords: files holding
#                                                them (docker-compose.secure.yml, Compose secrets)
#
# Sourced by the image's entrypoint: a function keeps its names out of the entrypoint's shell.

ax_create_users() {
  if ! declare -F docker_process_sql > /dev/null; then
    echo "ax-users.sh: docker_process_sql is missing: the mysql image must source this file (it must not be executable)" >&2
    return 1
  fi
  local name file
  # The secure variant (docker-compose.secure.yml) gives the passwords as files: <NAME>_FILE.
  for name in DB_MIGRATE_PASSWORD DB_APP_PASSWORD; do
    file="${name}_FILE"
    if [ -n "${!file:-}" ]; then
      if [ -n "${!name:-}" ]; then
        echo "ax-users.sh: both $name and $file are set: set one of them" >&2
        return 1
      fi
      if [ ! -r "${!file}" ]; then
        echo "ax-users.sh: $file=${!file} cannot be read" >&2
        return 1
      fi
      # The file's content without its trailing line breaks; local to this function.
      local "$name"
      printf -v "$name" '%s' "$(< "${!file}")"
    fi
  done
  for name in MYSQL_DATABASE AX_DB_MIGRATE_USER DB_MIGRATE_PASSWORD AX_DB_APP_USER DB_APP_PASSWORD; do
    if [ -z "${!name:-}" ]; then
      echo "ax-users.sh: $name is empty: set it in compose/.env (see compose/.env.example)" >&2
      return 1
    fi
  done
  if [ "$AX_DB_MIGRATE_USER" = "$AX_DB_APP_USER" ]; then
    echo "ax-users.sh: the migration user and the stages' user must differ" >&2
    return 1
  fi
  # SQL string literals and identifiers: quotes doubled, backslashes escaped.
  local schema migrate_user migrate_password app_user app_password
  schema=$(ax_sql_identifier "$MYSQL_DATABASE")
  migrate_user=$(ax_sql_string "$AX_DB_MIGRATE_USER")
  migrate_password=$(ax_sql_string "$DB_MIGRATE_PASSWORD")
  app_user=$(ax_sql_string "$AX_DB_APP_USER")
  app_password=$(ax_sql_string "$DB_APP_PASSWORD")
  echo "ax-users.sh: creating ${AX_DB_MIGRATE_USER} (schema owner) and ${AX_DB_APP_USER} (DML only) on ${MYSQL_DATABASE}"
  docker_process_sql <<- EOSQL
	CREATE USER ${migrate_user}@'%' IDENTIFIED BY ${migrate_password};
	GRANT ALL PRIVILEGES ON ${schema}.* TO ${migrate_user}@'%';
	CREATE USER ${app_user}@'%' IDENTIFIED BY ${app_password};
	GRANT SELECT, INSERT, UPDATE, DELETE ON ${schema}.* TO ${app_user}@'%';
	EOSQL
}

ax_sql_string() {
  local value=${1//\\/\\\\}
  printf "'%s'" "${value//\'/\'\'}"
}

ax_sql_identifier() {
  printf '`%s`' "${1//\`/\`\`}"
}

# A failure stops the image's initialisation (and the container) instead of starting without users.
ax_create_users || exit 1
unset -f ax_create_users ax_sql_string ax_sql_identifier
