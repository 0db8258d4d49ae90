/** Service field names whose flag is not simply the name with dashes. */
const FLAG_NAMES: Record<string, string> = {
  phone_no: '--phone',
}

/** The flag a user types for a service field: `reference_2` -> `--reference-2`. */
export function flagForField(field: string): string {
  // Own entries only: a field named `constructor` or `toString` is no key of the table.
  return Object.hasOwn(FLAG_NAMES, field) ? FLAG_NAMES[field] : `--${field.replace(/_/g, '-')}`
}
