/**
 * No system keychain for the tests, as on a headless CI box, and never the developer's own. On
 * Linux: a D-Bus address where nothing listens, and no XDG_RUNTIME_DIR (whose `bus` socket the
 * keychain library would try next), so that the real "no keychain" path is what runs;
 * test/helpers/keyring.ts gives the keychain tests a keyring of their own. Elsewhere (macOS
 * Keychain, Windows Credential Manager, always there): PAY_KEYCHAIN=0, which pay treats the same
 * way.
 *
 * Given, never written into process.env: to every run of pay by cleanEnv (test/helpers/cli.ts),
 * under the test's own `env`; and to the test workers as they start (vitest.config.ts, `test.env`).
 */

/** A D-Bus session address where nothing listens. */
export const NO_SESSION_BUS = 'unix:path=/nonexistent/pay-tests/no-session-bus'

/** For a run of pay: an undefined value is a variable left out. */
export const NO_KEYCHAIN_ENV: Readonly<Record<string, string | undefined>> =
  process.platform === 'linux'
    ? { DBUS_SESSION_BUS_ADDRESS: NO_SESSION_BUS, XDG_RUNTIME_DIR: undefined }
    : { PAY_KEYCHAIN: '0' }

/**
 * For a test worker process, which vitest starts with `test.env` over its own environment. Vitest
 * sets every variable given there (one given as undefined would read "undefined"), so the worker's
 * XDG_RUNTIME_DIR is a directory that does not exist, with no `bus` in it.
 */
export const WORKER_ENV: Readonly<Record<string, string>> =
  process.platform === 'linux'
    ? { DBUS_SESSION_BUS_ADDRESS: NO_SESSION_BUS, XDG_RUNTIME_DIR: '/nonexistent/pay-tests/no-runtime-dir' }
    : { PAY_KEYCHAIN: '0' }
