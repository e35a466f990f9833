// A publish ceiling as people write it (whole or two-decimal dollars) in the US cents the ledger keeps.

/** Dollars to whole cents, or null when the amount has more than two decimals. */
export function dollarsToCents(dollars: number): number | null {
  const cents = Math.round(dollars * 100);
  return Math.abs(dollars * 100 - cents) < 1e-6 ? cents : null;
}
