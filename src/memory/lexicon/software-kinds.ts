/**
 * Kinds of software and services, and well-known members of each: what a team's facts name
 * ("Customer records live in PostgreSQL 15") and what its questions ask for ("what database do we
 * use?"). No word list the lexicon is built from knows that PostgreSQL is a database, so this table
 * says it. Each record is an intent (intents.ts): its nouns and its members name it, in a question as
 * in a fact. A kind that is also an attribute of capture's lexicon uses that attribute's name, so
 * its nouns there count too.
 */

export interface SoftwareKind {
  /** The intent's name: an attribute of the attribute lexicon where there is one. */
  readonly kind: string;
  /** Words that name the kind ("error tracker", "crash reporting"). */
  readonly nouns: readonly string[];
  /** Products and projects of the kind, as people write them (lower case). */
  readonly members: readonly string[];
}

// biome-ignore format: a data table, one record per line
export const SOFTWARE_KINDS: readonly SoftwareKind[] = [
  { kind: "database", nouns: ["database", "db", "datastore", "data store", "rdbms"], members: ["postgresql", "postgres", "mysql", "mariadb", "sqlite", "oracle database", "sql server", "mongodb", "dynamodb", "cassandra", "cockroachdb", "couchdb", "firestore", "supabase", "planetscale", "aurora", "neo4j", "spanner"] },
  { kind: "data warehouse", nouns: ["data warehouse", "warehouse", "analytics database", "data lake", "lakehouse"], members: ["bigquery", "snowflake", "redshift", "databricks", "clickhouse", "synapse", "athena"] },
  { kind: "cache", nouns: ["cache", "caching layer", "caching", "in-memory store", "key-value store"], members: ["redis", "memcached", "valkey", "varnish", "hazelcast", "keydb"] },
  { kind: "message broker", nouns: ["message queue", "message broker", "queue", "event bus", "event stream", "pub/sub"], members: ["rabbitmq", "kafka", "sqs", "sns", "nats", "activemq", "pulsar", "kinesis", "pubsub", "celery", "sidekiq", "zeromq"] },
  { kind: "search engine", nouns: ["search engine", "search index", "full-text search", "search cluster"], members: ["elasticsearch", "opensearch", "solr", "algolia", "meilisearch", "typesense", "lucene"] },
  { kind: "cloud provider", nouns: ["cloud provider", "cloud platform", "cloud", "hosting provider", "hosting", "infrastructure"], members: ["aws", "amazon web services", "google cloud", "gcp", "azure", "digitalocean", "linode", "hetzner", "heroku", "vercel", "netlify", "fly.io", "cloudflare workers", "ovh"] },
  { kind: "container orchestration", nouns: ["container orchestration", "orchestrator", "container platform", "orchestration platform"], members: ["kubernetes", "k8s", "nomad", "docker swarm", "ecs", "eks", "gke", "aks", "openshift"] },
  { kind: "ci provider", nouns: ["ci", "ci system", "continuous integration", "build server", "ci/cd"], members: ["circleci", "jenkins", "github actions", "gitlab ci", "travis ci", "buildkite", "teamcity", "azure pipelines"] },
  { kind: "deployment tool", nouns: ["deployment tool", "deploy tool", "continuous delivery", "gitops", "release tooling"], members: ["argo cd", "argocd", "spinnaker", "octopus deploy", "capistrano", "ansible", "terraform", "pulumi"] },
  { kind: "monitoring tool", nouns: ["monitoring", "monitoring tool", "observability", "apm", "metrics", "dashboards", "alerting"], members: ["datadog", "new relic", "grafana", "prometheus", "dynatrace", "honeycomb", "splunk", "pagerduty", "opsgenie", "nagios", "zabbix", "kibana"] },
  { kind: "error tracker", nouns: ["error tracker", "error tracking", "crash reporting", "exception tracking", "error monitoring"], members: ["sentry", "bugsnag", "rollbar", "raygun", "honeybadger", "crashlytics", "airbrake"] },
  { kind: "repository", nouns: ["version control", "source control", "code hosting", "repository", "repo", "git hosting"], members: ["github", "gitlab", "bitbucket", "azure repos", "gitea", "sourcehut"] },
  { kind: "chat tool", nouns: ["chat app", "chat tool", "team chat", "messaging app", "chat platform"], members: ["slack", "microsoft teams", "ms teams", "discord", "mattermost", "zulip", "google chat", "rocket.chat"] },
  { kind: "video calls", nouns: ["video call", "video calls", "video conferencing", "meeting tool", "call tool"], members: ["zoom", "google meet", "webex", "whereby", "gotomeeting"] },
  { kind: "wiki", nouns: ["wiki", "documentation", "docs", "knowledge base", "handbook", "internal docs"], members: ["notion", "confluence", "gitbook", "readme.io", "docusaurus", "mkdocs"] },
  { kind: "issue tracker", nouns: ["issue tracker", "ticket tracker", "bug tracker", "project management tool", "backlog", "task tracker"], members: ["jira", "asana", "trello", "clickup", "monday.com", "youtrack", "basecamp"] },
  { kind: "design tool", nouns: ["design tool", "mockups", "wireframes", "prototyping tool", "ui design"], members: ["figma", "adobe xd", "invision", "zeplin", "balsamiq", "canva"] },
  { kind: "secrets manager", nouns: ["secrets manager", "secret store", "secrets", "credentials store", "password manager", "key management"], members: ["hashicorp vault", "1password", "lastpass", "bitwarden", "aws secrets manager", "doppler", "kms"] },
  { kind: "product analytics", nouns: ["analytics", "product analytics", "analytics tool", "user tracking", "event tracking", "web analytics"], members: ["mixpanel", "amplitude", "google analytics", "posthog", "plausible", "matomo", "fullstory", "hotjar"] },
  { kind: "framework", nouns: ["framework", "frontend framework", "web framework", "ui framework", "ui library"], members: ["react", "vue", "angular", "svelte", "next.js", "nextjs", "nuxt", "django", "rails", "ruby on rails", "laravel", "flask", "fastapi", "elysia", "hono"] },
  { kind: "programming language", nouns: ["programming language", "implementation language", "coding language"], members: ["typescript", "javascript", "python", "golang", "rust", "java", "kotlin", "swift", "ruby", "php", "scala", "elixir", "haskell", "clojure"] },
  { kind: "code formatter", nouns: ["style guide", "code style", "linter", "formatter", "lint rules", "formatting rules"], members: ["prettier", "eslint", "biome", "ruff", "rubocop", "gofmt", "clippy", "stylelint", "pylint", "flake8"] },
  { kind: "identity provider", nouns: ["identity provider", "sso", "single sign-on", "login provider", "auth provider"], members: ["okta", "auth0", "azure ad", "entra id", "keycloak", "onelogin", "google workspace", "cognito"] },
  { kind: "cdn", nouns: ["cdn", "content delivery network", "edge network", "dns provider"], members: ["cloudflare", "fastly", "akamai", "cloudfront", "bunny.net"] },
  { kind: "hr tool", nouns: ["hr system", "hr tool", "people system", "time off", "leave requests", "payroll"], members: ["bamboohr", "workday", "personio", "gusto", "rippling", "hibob", "adp"] },
  { kind: "payment processor", nouns: ["payment processor", "payments provider", "payment gateway", "card payments", "billing provider"], members: ["stripe", "adyen", "braintree", "paypal", "mollie", "paddle", "chargebee", "recurly"] },
  { kind: "email service", nouns: ["email service", "transactional email", "email provider", "newsletter tool", "mailing list"], members: ["sendgrid", "mailgun", "postmark", "mailchimp", "amazon ses", "resend", "sparkpost", "customer.io"] },
  { kind: "crm", nouns: ["crm", "customer relationship management", "sales tool", "sales pipeline"], members: ["salesforce", "hubspot", "pipedrive", "zoho crm", "attio", "dynamics 365"] },
  { kind: "support desk", nouns: ["help desk", "helpdesk", "support desk", "support inbox", "ticketing system", "customer support tool"], members: ["zendesk", "intercom", "freshdesk", "help scout", "gorgias", "kustomer"] },
  { kind: "laptop", nouns: ["laptop", "computer", "workstation", "operating system"], members: ["macbook", "macbook pro", "macbook air", "thinkpad", "dell xps", "chromebook", "macos", "linux", "ubuntu"] },
  { kind: "phone model", nouns: ["phone", "smartphone", "mobile phone", "handset"], members: ["iphone", "oneplus", "fairphone", "xperia"] },
  { kind: "subscription", nouns: ["streaming service", "streaming services", "subscription", "subscriptions", "streaming"], members: ["netflix", "spotify", "disney+", "hbo max", "apple music", "youtube premium", "prime video", "hulu", "audible", "apple tv+", "paramount+"] },
];
