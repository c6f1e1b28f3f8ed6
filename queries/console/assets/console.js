// The operator console's one script (served from /admin/assets; the pages' policy runs no inline
// script). Every page works without it: forms post and links navigate. With it, the figures of the
// page update live from /admin/live (Server-Sent Events), lag charts are drawn with uPlot, and forms
// marked data-confirm ask first.
(() => {
  document.addEventListener('submit', (event) => {
    const message = event.target.getAttribute('data-confirm');
    if (message && !window.confirm(message)) event.preventDefault();
  });

  const HOUR = 3600;
  const charts = new Map();

  function chartSize(element) {
    return { width: Math.max(element.clientWidth, 280), height: 200 };
  }

  function drawCharts() {
    if (!window.uPlot) return;
    for (const element of document.querySelectorAll('[data-chart="lag"]')) {
      const source = document.getElementById(element.dataset.source);
      const data = source ? JSON.parse(source.textContent) : [[], [], []];
      const plot = new window.uPlot(
        {
          ...chartSize(element),
          series: [
            {},
            { label: 'Lag (events)', stroke: '#0b57d0', width: 2, scale: 'events' },
            { label: 'Lag (seconds)', stroke: '#a1330f', width: 2, dash: [6, 4], scale: 's' },
          ],
          scales: {
            events: { range: (_u, _min, max) => [0, Math.max(max, 1)] },
            s: { range: (_u, _min, max) => [0, Math.max(max, 1)] },
          },
          axes: [
            { stroke: '#333' },
            { scale: 'events', stroke: '#0b57d0', label: 'events' },
            { scale: 's', side: 1, stroke: '#a1330f', label: 'seconds', grid: { show: false } },
          ],
        },
        data,
        element,
      );
      charts.set(element.dataset.series, { plot, data, element });
    }
    window.addEventListener('resize', () => {
      for (const { plot, element } of charts.values()) plot.setSize(chartSize(element));
    });
  }

  function addPoint(id, [t, events, seconds]) {
    const chart = charts.get(id);
    if (!chart) return;
    const [ts, es, ss] = chart.data;
    if (ts.length > 0 && t <= ts[ts.length - 1]) return;
    ts.push(t);
    es.push(events);
    ss.push(seconds);
    while (ts.length > 0 && ts[0] < t - HOUR) {
      ts.shift();
      es.shift();
      ss.shift();
    }
    chart.plot.setData(chart.data);
  }

  function follow(page) {
    if (!window.EventSource) return;
    const source = new EventSource(`/admin/live?page=${encodeURIComponent(page)}`);
    let failures = 0;
    source.addEventListener('figures', (message) => {
      failures = 0;
      const figures = JSON.parse(message.data);
      for (const [id, markup] of Object.entries(figures.fragments || {})) {
        const element = document.querySelector(`[data-fragment="${CSS.escape(id)}"]`);
        // Markup rendered and escaped by the server, as the page was.
        if (element && element.dataset.markup !== markup) {
          element.innerHTML = markup;
          element.dataset.markup = markup;
        }
      }
      for (const [id, point] of Object.entries(figures.lag || {})) addPoint(id, point);
      document.body.dataset.liveAt = String(Date.now());
    });
    // Signed out or gone: after a few failures in a row, stop asking (the page still works).
    source.addEventListener('error', () => {
      failures += 1;
      if (failures >= 5) source.close();
    });
  }

  drawCharts();
  const page = document.body.dataset.live;
  if (page) follow(page);
})();
