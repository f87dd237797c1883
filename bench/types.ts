/** The shape every `bench/<area>.bench.ts` returns; `bench/run.ts` renders them into docs/benchmarks.md. */
export interface BenchRow {
  metric: string;
  value: number;
  unit: string;
  /** value ÷ the floor or peer measured in the same run. */
  ratio?: number;
  against?: string;
  target?: string;
  pass?: boolean;
}

export interface BenchSection {
  title: string;
  rows: BenchRow[];
  notes?: string[];
}
