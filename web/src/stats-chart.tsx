import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

// One chart of an endpoint's record over time (a webhook's, a decision endpoint's, an agent tool's), drawn with uPlot
// (docs/adr/0082-charts-with-uplot.md): a figure whose caption says what it shows in words, with the numbers behind
// it in a table, so it reads without colour; each line has a dash of its own.

/** A line of a chart: the point's field it draws, its label, its colour (Okabe–Ito) and its dash. */
export interface Line<K extends string> {
  key: K;
  label: string;
  stroke: string;
  dash: number[];
}

export function StatsChart<K extends string, P extends { at: string } & Record<K, number | null>>(props: {
  title: string;
  unit: string;
  points: P[];
  timeZone: string;
  series: Array<Line<K>>;
  describe: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const { points, series } = props;
  useEffect(() => {
    if (!box.current) return;
    const data: uPlot.AlignedData = [
      points.map((p) => Date.parse(p.at) / 1000),
      ...series.map((s) => points.map((p) => p[s.key])),
    ];
    const plot = new uPlot(
      {
        width: Math.max(320, box.current.clientWidth),
        height: 220,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, dash: s.dash, width: 2 }))],
        axes: [{}, { label: props.unit }],
        legend: { live: false },
      },
      data,
      box.current,
    );
    // What the chart holds, for anyone (and any test) reading the page: the points it draws.
    (box.current as HTMLDivElement & { chartData?: uPlot.AlignedData }).chartData = data;
    return () => plot.destroy();
  }, [points, series.map((s) => s.key).join()]);
  const id = `chart-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure aria-labelledby={id}>
      <figcaption id={id}>
        {props.title}: {props.describe}
      </figcaption>
      <div ref={box} role="img" aria-label={`${props.title}: ${props.describe}`} data-points={points.length} />
      <details>
        <summary>The numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">From</th>
              {series.map((s) => (
                <th scope="col" key={s.key}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.at}>
                <td>{new Date(p.at).toLocaleString(undefined, { timeZone: props.timeZone })}</td>
                {series.map((s) => (
                  <td key={s.key}>{p[s.key] ?? '—'}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The windows a health panel offers. */
export const WINDOWS = [
  { label: 'Last hour, by minute', bucket: 'minute', ms: 3_600_000 },
  { label: 'Last day, by hour', bucket: 'hour', ms: 86_400_000 },
  { label: 'Last 30 days, by day', bucket: 'day', ms: 30 * 86_400_000 },
] as const;

/** The window chooser of a health panel. */
export function WindowSelect(props: { value: number; onChange: (index: number) => void }) {
  return (
    <label>
      Window{' '}
      <select value={props.value} onChange={(e) => props.onChange(Number((e.target as HTMLSelectElement).value))}>
        {WINDOWS.map((w, i) => (
          <option value={i} key={w.bucket}>
            {w.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A small trend of a list's row: every count (grey) and the good ones (green, dashed), over the last day. */
export function Trend(props: { all: number[]; good: number[]; label: string }) {
  const box = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const data: uPlot.AlignedData = [props.all.map((_, i) => i), props.all, props.good];
    const plot = new uPlot(
      {
        width: 96,
        height: 24,
        legend: { show: false },
        cursor: { show: false },
        axes: [{ show: false }, { show: false }],
        scales: { x: { time: false } },
        series: [{}, { stroke: '#6b7280', width: 1 }, { stroke: '#009E73', width: 1, dash: [3, 2] }],
      },
      data,
      box.current,
    );
    (box.current as HTMLSpanElement & { chartData?: uPlot.AlignedData }).chartData = data;
    return () => plot.destroy();
  }, [props.all.join(), props.good.join()]);
  const total = props.all.reduce((n, v) => n + v, 0);
  return <span ref={box} class="trend" role="img" aria-label={`${props.label}: ${total} in the last day`} data-trend />;
}
