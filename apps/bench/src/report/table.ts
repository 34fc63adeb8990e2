/**
 * The report's tables as header + rows of strings, rendered by the terminal (fixed width) and
 * the Markdown report alike.
 */
export interface Table {
  title: string;
  /** One line on what the rows mean. */
  note: string;
  headers: string[];
  rows: string[][];
  /**
   * The number behind each cell (same shape as `rows`; undefined for text cells): what the
   * HTML report sorts by and what its test compares with the JSON.
   */
  values?: (number | undefined)[][];
}
