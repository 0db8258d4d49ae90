/**
 * The sandbox database's tables and their versions. `PRAGMA user_version` holds the number of
 * migrations applied; opening a database applies the missing ones in one transaction. The next
 * change to the tables is one more entry at the end of MIGRATIONS (never an edit of an earlier
 * one: a database out there has run it).
 */
import { scheduleRows } from './schedule.js'

/** What a migration may use of a connection. */
export interface Executor {
  exec(sql: string): unknown
}

export interface Migration {
  /** What it changes, for the reader of this file. */
  summary: string
  up(db: Executor): void
}

/**
 * The resource tables: one per resource, its records as the API answers them (JSON text), in the
 * order of the API.
 */
export const RESOURCE_TABLES = ['tokenizations', 'payment_links', 'subscriptions'] as const

/**
 * Version 1: the store of pay's JSON-file sandbox, as tables.
 * - `businesses`: one row per API key that wrote something, by the sha256 of the key (never the
 *   key), with the number of links and subscriptions it holds (kept by triggers) so that a
 *   list's `total` is one row read, not a count over the table.
 * - one table per resource: `seq` (the rowid) is the order of creation, so a list is newest
 *   first by the (business, seq) index; `(business, id)` finds a record of the business.
 *   Payment links are also found by id alone (the public payment page), tokenizations by token
 *   (the activation page), which also records when a token was activated: the API's record of a
 *   tokenization has no such field.
 * - `secrets`: the key the customer pages sign their form tokens with.
 * - `imports`: the store.json files imported, by sha256, so that one is never imported twice.
 */
const VERSION_1: Migration = {
  summary: 'the tables of the JSON store of pay 0.1',
  up(db) {
    db.exec(`
      CREATE TABLE businesses (
        id INTEGER PRIMARY KEY,
        key_hash TEXT NOT NULL UNIQUE,
        business_id INTEGER NOT NULL,
        payment_links INTEGER NOT NULL DEFAULT 0,
        subscriptions INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE tokenizations (
        seq INTEGER PRIMARY KEY,
        business INTEGER NOT NULL REFERENCES businesses (id),
        id TEXT NOT NULL,
        token TEXT NOT NULL,
        activated_at TEXT,
        record TEXT NOT NULL
      );
      CREATE UNIQUE INDEX tokenizations_by_business_id ON tokenizations (business, id);
      CREATE UNIQUE INDEX tokenizations_by_token ON tokenizations (token);
      CREATE TABLE payment_links (
        seq INTEGER PRIMARY KEY,
        business INTEGER NOT NULL REFERENCES businesses (id),
        id TEXT NOT NULL,
        record TEXT NOT NULL
      );
      CREATE UNIQUE INDEX payment_links_by_business_id ON payment_links (business, id);
      CREATE INDEX payment_links_by_business_seq ON payment_links (business, seq);
      CREATE INDEX payment_links_by_id ON payment_links (id);
      CREATE TABLE subscriptions (
        seq INTEGER PRIMARY KEY,
        business INTEGER NOT NULL REFERENCES businesses (id),
        id TEXT NOT NULL,
        record TEXT NOT NULL
      );
      CREATE UNIQUE INDEX subscriptions_by_business_id ON subscriptions (business, id);
      CREATE INDEX subscriptions_by_business_seq ON subscriptions (business, seq);
      CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
      CREATE TABLE imports (sha256 TEXT PRIMARY KEY, file TEXT NOT NULL, records INTEGER NOT NULL, imported_at TEXT NOT NULL);
    `)
    for (const table of ['payment_links', 'subscriptions']) {
      db.exec(`
        CREATE TRIGGER ${table}_counted AFTER INSERT ON ${table} BEGIN
          UPDATE businesses SET ${table} = ${table} + 1 WHERE id = NEW.business;
        END;
        CREATE TRIGGER ${table}_uncounted AFTER DELETE ON ${table} BEGIN
          UPDATE businesses SET ${table} = ${table} - 1 WHERE id = OLD.business;
        END;
      `)
    }
  },
}

/**
 * Version 2: the `Idempotency-Key`s of the business's POSTs, with the answer each one got, so that
 * a POST sent again with its key is answered the same without creating anything twice (kept 24 h,
 * as Stripe keeps them).
 * - `fingerprint`: sha256 of the request (path and body), to refuse the key on another request;
 * - `status`, `response`: the answer as sent (the JSON text of its body);
 * - `created_at`: milliseconds since the epoch, indexed so that expired keys are found and
 *   deleted without reading the table.
 */
const VERSION_2: Migration = {
  summary: 'idempotency keys',
  up(db) {
    db.exec(`
      CREATE TABLE idempotency_keys (
        business INTEGER NOT NULL REFERENCES businesses (id),
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        response TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (business, key)
      );
      CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
    `)
  },
}

/**
 * Version 3: the sandbox clock and the charges of subscriptions (schedule.ts, clock.ts,
 * handlers/billing/billing.ts).
 * - `clock`: one row, the offset of sandbox time from real time in milliseconds (0: real time).
 * - `schedules`: one row per subscription that bills (not cancelled, a known frequency, a real
 *   `date_charge_start`): its period (`months` or `days`), its anchor, and the number and date of
 *   its next charge, indexed by date so that what is due is found without reading the table. Kept
 *   by triggers: made when a subscription is inserted (however it is: the API, an import, a test),
 *   deleted when it is cancelled or deleted. Subscriptions already in the database are scheduled
 *   here, from the first date after the day each was created, as a new one would be.
 * - `charges`: one row per charge made, UNIQUE per (business, subscription, date): the database
 *   itself refuses a second charge for a date, whatever process tries. `link` is the _id of its
 *   payment link (a row of payment_links, the charge's current state); the rows stay when the
 *   subscription is deleted, as its links do.
 */
const VERSION_3: Migration = {
  summary: 'the sandbox clock, subscription schedules and charges',
  up(db) {
    const columns = 'subscription, business, id, months, days, anchor, anchor_month, anchor_day, n, due'
    const inserted = '(SELECT NEW.seq AS seq, NEW.business AS business, NEW.id AS id, NEW.record AS record)'
    db.exec(`
      CREATE TABLE clock (id INTEGER PRIMARY KEY CHECK (id = 1), offset_ms INTEGER NOT NULL);
      INSERT INTO clock (id, offset_ms) VALUES (1, 0);
      CREATE TABLE schedules (
        subscription INTEGER PRIMARY KEY,
        business INTEGER NOT NULL,
        id TEXT NOT NULL,
        months INTEGER NOT NULL,
        days INTEGER NOT NULL,
        anchor TEXT NOT NULL,
        anchor_month INTEGER NOT NULL,
        anchor_day INTEGER NOT NULL,
        n INTEGER NOT NULL,
        due TEXT NOT NULL
      );
      CREATE INDEX schedules_by_due ON schedules (due);
      CREATE TABLE charges (
        seq INTEGER PRIMARY KEY,
        business INTEGER NOT NULL,
        subscription TEXT NOT NULL,
        due TEXT NOT NULL,
        n INTEGER NOT NULL,
        period_end TEXT NOT NULL,
        package TEXT,
        link TEXT NOT NULL,
        UNIQUE (business, subscription, due)
      );
      CREATE INDEX charges_by_link ON charges (link);
      CREATE TRIGGER subscriptions_scheduled AFTER INSERT ON subscriptions BEGIN
        INSERT INTO schedules (${columns}) ${scheduleRows(inserted)};
      END;
      CREATE TRIGGER subscriptions_cancelled AFTER UPDATE OF record ON subscriptions
        WHEN NEW.record ->> '$.status' = 'cancel' BEGIN
        DELETE FROM schedules WHERE subscription = NEW.seq;
      END;
      CREATE TRIGGER subscriptions_unscheduled AFTER DELETE ON subscriptions BEGIN
        DELETE FROM schedules WHERE subscription = OLD.seq;
      END;
      INSERT INTO schedules (${columns}) ${scheduleRows('subscriptions')};
    `)
  },
}

/**
 * Version 4: the names of seeded records (`pay sandbox seed`, handlers/double/fixtures.ts): one row
 * per (business, name), the kind and `_id` of the record the name was last seeded as, so that
 * `--once` skips the names a business has already. Emptied with the business's records by a reset.
 */
const VERSION_4: Migration = {
  summary: 'the names of seeded records',
  up(db) {
    db.exec(`
      CREATE TABLE seeded (
        business INTEGER NOT NULL REFERENCES businesses (id),
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        PRIMARY KEY (business, name)
      );
    `)
  },
}

/**
 * Version 5: the sandbox's notifications (handlers/notify/).
 * - `signature_keys`: each business's key for the hash of its notifications, by the sha256 of its
 *   API key (like `businesses`, but kept by a reset: an app under test is configured with it).
 * - `webhook_endpoints`: where a business's notifications go, by the same hash, each URL once;
 *   `expires_at` (milliseconds, real time) for an endpoint that lives only while it is renewed
 *   (`pay sandbox listen`), NULL for one that stays. Kept by a reset too: they are settings.
 * - `webhook_deliveries`: the outbox, one row per notification to an endpoint, with its body as
 *   sent (every attempt sends the same bytes), its state (`pending`, `delivered`, `failed`), its
 *   attempts (JSON), how many it may make (`budget`), when it is next due (`due`, real time) and
 *   the lease of the process attempting it (`lease_owner` until `lease_until`), so that of two
 *   sandboxes on one directory one attempt is made, and one killed mid-attempt is retried by the
 *   next once its lease ran out. Due deliveries are found by a partial index of the pending ones.
 */
const VERSION_5: Migration = {
  summary: 'signature keys, webhook endpoints and the outbox of notifications',
  up(db) {
    db.exec(`
      CREATE TABLE signature_keys (key_hash TEXT PRIMARY KEY, key TEXT NOT NULL);
      CREATE TABLE webhook_endpoints (
        seq INTEGER PRIMARY KEY,
        key_hash TEXT NOT NULL,
        id TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        expires_at INTEGER,
        UNIQUE (key_hash, url)
      );
      CREATE INDEX webhook_endpoints_by_business ON webhook_endpoints (key_hash, seq);
      CREATE TABLE webhook_deliveries (
        seq INTEGER PRIMARY KEY,
        business INTEGER NOT NULL REFERENCES businesses (id),
        id TEXT NOT NULL UNIQUE,
        endpoint TEXT NOT NULL,
        url TEXT NOT NULL,
        event TEXT NOT NULL,
        link TEXT NOT NULL,
        body TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts TEXT NOT NULL,
        tries INTEGER NOT NULL,
        budget INTEGER NOT NULL,
        due INTEGER,
        lease_until INTEGER,
        lease_owner TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX webhook_deliveries_by_business_seq ON webhook_deliveries (business, seq);
      CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (due) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (endpoint) WHERE state = 'pending';
    `)
  },
}

/**
 * Version 6: a payment link is found by one index on `(id, business)` instead of two, on
 * `(business, id)` and on `id`: both lookups (a business's link, the public page's link by id alone)
 * use it, and (business, id) stays unique. Ids are random, so each index puts every new link on a
 * page of its own: one index fewer is one page fewer to write per link, at every commit and
 * every checkpoint (docs/performance.md).
 */
const VERSION_6: Migration = {
  summary: 'one index finds a payment link, by id',
  up(db) {
    db.exec(`
      CREATE UNIQUE INDEX payment_links_by_id_business ON payment_links (id, business);
      DROP INDEX payment_links_by_business_id;
      DROP INDEX payment_links_by_id;
    `)
  },
}

/**
 * Version 7: when each webhook endpoint was added and last changed (ISO 8601, real time, as its
 * `created_at` and `updated_at`): the webhook events of a business's integration are its endpoints
 * (handlers/account/), answered with both. The endpoints there before count as made now.
 */
const VERSION_7: Migration = {
  summary: 'webhook endpoints: created_at and updated_at',
  up(db) {
    db.exec(`
      ALTER TABLE webhook_endpoints ADD COLUMN created_at TEXT;
      ALTER TABLE webhook_endpoints ADD COLUMN updated_at TEXT;
      UPDATE webhook_endpoints SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now');
    `)
  },
}

/** Every version of the tables, oldest first: index i takes a database from version i to i + 1. */
export const MIGRATIONS: readonly Migration[] = [
  VERSION_1,
  VERSION_2,
  VERSION_3,
  VERSION_4,
  VERSION_5,
  VERSION_6,
  VERSION_7,
]

export type ResourceTable = (typeof RESOURCE_TABLES)[number]

/**
 * The tables of a business's data, each row of one business: what a reset empties, of one business
 * (STATEMENTS.removeAll) or of every one (SandboxStore.empty). A new table of the kind goes here.
 */
export const BUSINESS_TABLES = [
  ...RESOURCE_TABLES,
  'idempotency_keys',
  'charges',
  'seeded',
  'webhook_deliveries',
] as const

/** A table that lists (and counts) its records. */
export type Listed = 'payment_links' | 'subscriptions'

const BUSINESS = '(SELECT id FROM businesses WHERE key_hash = ?)'

/**
 * Every statement the store runs on behalf of a request. Each finds its rows through an index
 * (test/unit/sandbox/store/schema.test.ts checks the query plans): none reads a whole table.
 */
export const STATEMENTS = {
  business: 'INSERT INTO businesses (key_hash, business_id) VALUES (?, ?) ON CONFLICT (key_hash) DO NOTHING',
  get: (table: ResourceTable) => `SELECT record FROM ${table} WHERE business = ${BUSINESS} AND id = ?`,
  insert: (table: Listed) => `INSERT INTO ${table} (business, id, record) VALUES (${BUSINESS}, ?, ?)`,
  insertTokenization: `INSERT INTO tokenizations (business, id, token, record) VALUES (${BUSINESS}, ?, ?, ?)`,
  update: (table: Listed) => `UPDATE ${table} SET record = ? WHERE business = ${BUSINESS} AND id = ?`,
  remove: (table: Listed) => `DELETE FROM ${table} WHERE business = ${BUSINESS} AND id = ?`,
  total: (table: Listed) => `SELECT ${table} AS total FROM businesses WHERE key_hash = ?`,
  list: (table: Listed) =>
    `SELECT record FROM ${table} WHERE business = ${BUSINESS} ORDER BY seq DESC LIMIT ? OFFSET ?`,
  /** The first link made with this id (a store imported from several may hold it twice). */
  linkById:
    'SELECT seq, record FROM payment_links WHERE seq = (SELECT min(seq) FROM payment_links WHERE id = ?)',
  linkOfBusiness: `SELECT seq, record FROM payment_links WHERE business = ${BUSINESS} AND id = ?`,
  updateLinkBySeq: 'UPDATE payment_links SET record = ? WHERE seq = ?',
  tokenization:
    'SELECT t.seq, t.record, t.activated_at, b.business_id FROM tokenizations t JOIN businesses b ON b.id = t.business WHERE t.token = ?',
  activate: 'UPDATE tokenizations SET activated_at = ? WHERE seq = ? AND activated_at IS NULL',
  secret: 'SELECT value FROM secrets WHERE name = ?',
  addSecret: 'INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
  recall: `SELECT fingerprint, status, response, created_at FROM idempotency_keys WHERE business = ${BUSINESS} AND key = ?`,
  remember: `INSERT INTO idempotency_keys (business, key, fingerprint, status, response, created_at) VALUES (${BUSINESS}, ?, ?, ?, ?, ?)
    ON CONFLICT (business, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
    response = excluded.response, created_at = excluded.created_at`,
  /** Every record of one business in a table (`/_sandbox/reset` through HTTP: the caller's own). */
  removeAll: (table: (typeof BUSINESS_TABLES)[number]) => `DELETE FROM ${table} WHERE business = ${BUSINESS}`,
  /** A few expired keys at a time, oldest first: a write never pays for a long backlog at once. */
  forget:
    'DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT 16)',
} as const
