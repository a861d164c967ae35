// Draws the charts of k25comm's history page (index.html, `k25comm history page`) with Chart.js from
// window.K25_HISTORY (history-data.js: the document history.json holds): per judged figure, value against night
// with one line per node (PCIe and NVLink nodes on one axis) and each night's spread (p50 to p90) as a band;
// regressions, suspicious nights and change points as marks on their nights; upgrades and change points as
// dashed lines with what changed; a click on a point opens that night's report. The charts of the first screen are
// drawn at once, the others as they come near the window or when the browser is idle, so that a year of nights
// opens in a second (tools/bench-history-page).
(function () {
  'use strict';
  const section = document.getElementById('figures');
  const doc = window.K25_HISTORY;

  function fail(message) {
    console.error('k25comm history page: ' + message);
    const p = document.createElement('p');
    p.className = 'page-error';
    p.textContent = message;
    (section || document.body).appendChild(p);
  }
  if (typeof Chart === 'undefined') return fail('chart.min.js (Chart.js) did not load');
  if (!doc || !Array.isArray(doc.figures)) return fail('history-data.js did not load');

  const nodeColours = ['#1f77b4', '#2ca02c', '#8c564b', '#17becf', '#7f7f7f', '#bcbd22'];
  const marks = {
    regression: {colour: '#d62728', style: 'rectRot', radius: 7},
    suspicious: {colour: '#ff7f0e', style: 'circle', radius: 5},
    change: {colour: '#9467bd', style: 'triangle', radius: 8},
  };
  const colourOf = new Map(doc.nodes.map((node, i) => [node, nodeColours[i % nodeColours.length]]));
  const runOf = new Map(doc.runs.map((run) => [run.node + '\n' + run.night, run]));
  const times = new Map();
  function x(night) {
    let t = times.get(night);
    if (t === undefined) {
      t = Date.parse(night);
      times.set(night, t);
    }
    return t;
  }
  function day(ms) {
    return new Date(ms).toISOString().slice(0, 10);
  }
  function anchor(name) {
    return 'fig-' + name.replace(/[^A-Za-z0-9]/g, '-');
  }
  function changes(changed) {
    if (!changed.length) return 'nothing recorded changed';
    return changed.map((c) => c.field + ' ' + (c.before || '(none)') + ' \u2192 ' + (c.after || '(none)')).join(', ');
  }
  function link(node, night) {
    const run = runOf.get(node + '\n' + night);
    return run ? run.report : '';
  }

  // One x range for every chart, whole days, ticks at midnight UTC.
  const dayMs = 86400000;
  let first = Infinity;
  let last = -Infinity;
  for (const run of doc.runs) {
    first = Math.min(first, x(run.night));
    last = Math.max(last, x(run.night));
  }
  const xMin = Math.floor(first / dayMs) * dayMs;
  const xMax = Math.max(Math.ceil(last / dayMs) * dayMs, xMin + dayMs);
  const xStep = Math.max(1, Math.ceil((xMax - xMin) / dayMs / 8)) * dayMs;

  const upgradesOf = new Map();
  for (const upgrade of doc.upgrades) {
    if (!upgradesOf.has(upgrade.node)) upgradesOf.set(upgrade.node, []);
    upgradesOf.get(upgrade.node).push(upgrade);
  }
  const changePointsOf = new Map();
  for (const point of doc.change_points) {
    if (!changePointsOf.has(point.figure)) changePointsOf.set(point.figure, []);
    changePointsOf.get(point.figure).push(point);
  }

  // Dashed vertical lines with a label (upgrades, change points), through Chart.js's plugin hooks and scales.
  const annotations = {
    id: 'k25Annotations',
    afterDatasetsDraw(chart, args, options) {
      const area = chart.chartArea;
      const ctx = chart.ctx;
      ctx.save();
      ctx.font = '10px sans-serif';
      (options.lines || []).forEach((line, i) => {
        const px = chart.scales.x.getPixelForValue(line.x);
        if (px < area.left || px > area.right) return;
        ctx.strokeStyle = line.colour;
        ctx.fillStyle = line.colour;
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
        ctx.setLineDash([]);
        const y = area.bottom - 4 - 12 * (i % 4);
        ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
        ctx.fillRect(px + 2, y - 9, ctx.measureText(line.label).width + 2, 11);
        ctx.fillStyle = line.colour;
        ctx.fillText(line.label, px + 3, y);
      });
      ctx.restore();
    },
  };

  function openReport(event, elements, chart) {
    if (!elements.length) return;
    const point = chart.data.datasets[elements[0].datasetIndex].data[elements[0].index];
    if (point && point.report) window.location.href = point.report;
  }

  // Marks of a long history (more than 60 nights) are drawn smaller, so that a lasting regression stays a line.
  function markDataset(label, node, role, points, many) {
    const mark = marks[role];
    const radius = many && role !== 'change' ? 3 : mark.radius;
    return {
      label: label,
      k25: {node: node, role: role},
      data: points,
      showLine: false,
      pointStyle: mark.style,
      pointRadius: radius,
      pointHoverRadius: radius + 2,
      borderColor: mark.colour,
      backgroundColor: role === 'suspicious' ? 'rgba(0,0,0,0)' : mark.colour,
      borderWidth: 2,
      order: 0,
    };
  }

  // A report link of one night, named by its date.
  function nightLink(node, night) {
    const a = document.createElement('a');
    a.href = link(node, night);
    a.dataset.node = node;
    a.dataset.night = night;
    a.textContent = day(x(night));
    return a;
  }

  // The marks in words under the chart: nights in a row with one verdict as one line, from its first night to its
  // last, each linking to its report.
  function caption(notes) {
    const list = document.createElement('ul');
    list.className = 'marks';
    for (const note of notes) {
      const item = document.createElement('li');
      item.className = note.role;
      item.dataset.node = note.node;
      item.dataset.night = note.nights[0];
      const count = note.nights.length;
      item.append(note.text + (count > 1 ? ', ' + count + ' nights from ' : ' on '));
      item.appendChild(nightLink(note.node, note.nights[0]));
      if (count > 1) {
        item.append(' to ');
        item.appendChild(nightLink(note.node, note.nights[count - 1]));
      }
      list.appendChild(item);
    }
    return list;
  }

  // The figure's place on the page: its title and an empty canvas of the chart's height.
  function skeleton(figure) {
    const box = document.createElement('figure');
    box.className = 'history-chart';
    box.id = anchor(figure.name);
    box.dataset.figure = figure.name;
    const title = document.createElement('h3');
    const better = figure.lower_is_better ? ', lower is better)' : ', higher is better)';
    title.textContent = figure.name + ' (' + figure.unit + better;
    const holder = document.createElement('div');
    holder.className = 'canvas-box';
    const canvas = document.createElement('canvas');
    holder.appendChild(canvas);
    box.append(title, holder);
    section.appendChild(box);
    return {figure: figure, box: box, canvas: canvas, chart: null};
  }

  function draw(entry) {
    const figure = entry.figure;
    const box = entry.box;
    const canvas = entry.canvas;
    const datasets = [];
    const lines = [];
    const notes = [];
    const changeNights = new Set();
    for (const point of changePointsOf.get(figure.name) || []) changeNights.add(point.node + '\n' + point.night);
    for (const series of figure.series) {
      const node = series.node;
      const colour = colourOf.get(node);
      const many = series.points.length > 60;
      const values = [];
      const band = [];
      const valueAt = new Map();
      const byVerdict = {regression: [], suspicious: []};
      let previous = null;
      for (const p of series.points) {
        const t = x(p.night);
        const report = link(node, p.night);
        values.push({x: t, y: p.value, night: p.night, report: report, verdict: p.verdict, ratio: p.ratio});
        band.push({x: t, y: p.spread === null || p.spread === undefined ? p.value : p.value * (1 + p.spread)});
        valueAt.set(p.night, p.value);
        if (byVerdict[p.verdict]) {
          byVerdict[p.verdict].push({x: t, y: p.value, night: p.night, report: report});
          const ratio = p.ratio ? p.ratio.toFixed(3) + 'x' : '';
          if (previous && previous.role === p.verdict) {
            previous.nights.push(p.night);
            const range = previous.first === ratio ? ratio : previous.first + ' .. ' + ratio;
            previous.text = p.verdict + ' on ' + node + ', ' + range + ' the baseline';
          } else {
            previous = {role: p.verdict, node: node, nights: [p.night], first: ratio,
                        text: p.verdict + ' on ' + node + ', ' + ratio + ' the baseline'};
            notes.push(previous);
          }
        } else {
          previous = null;
        }
      }
      datasets.push({
        label: node + ' spread',
        k25: {node: node, role: 'band'},
        data: band,
        borderWidth: 0,
        pointRadius: 0,
        pointHitRadius: 0,
        backgroundColor: colour + '33',
        fill: '+1',
        order: 3,
      });
      datasets.push({
        label: node,
        k25: {node: node, role: 'value'},
        data: values,
        borderColor: colour,
        backgroundColor: colour,
        borderWidth: 1.5,
        pointRadius: many ? 0 : 2.5,
        pointHoverRadius: 4,
        pointHitRadius: 5,
        order: 2,
      });
      for (const role of ['regression', 'suspicious'])
        if (byVerdict[role].length) datasets.push(markDataset(node + ' ' + role, node, role, byVerdict[role], many));
      const changePoints = [];
      for (const point of changePointsOf.get(figure.name) || []) {
        if (point.node !== node) continue;
        const report = link(node, point.night);
        changePoints.push({x: x(point.night), y: valueAt.get(point.night), night: point.night, report: report});
        lines.push({x: x(point.night), colour: marks.change.colour, label: node + ': ' + changes(point.changed)});
        notes.push({role: 'change', node: node, nights: [point.night],
                    text: 'change point on ' + node + ' (' + point.mean_before.toPrecision(4) + ' \u2192 ' +
                          point.mean_after.toPrecision(4) + ' ' + figure.unit + '): ' + changes(point.changed)});
      }
      if (changePoints.length) datasets.push(markDataset(node + ' change point', node, 'change', changePoints, many));
      for (const upgrade of upgradesOf.get(node) || [])
        if (!changeNights.has(node + '\n' + upgrade.night) && valueAt.has(upgrade.night))
          lines.push({x: x(upgrade.night), colour: colour, label: node + ': ' + changes(upgrade.changed)});
    }
    const chart = new Chart(canvas, {
      type: 'line',
      data: {datasets: datasets},
      plugins: [annotations],
      options: {
        animation: false,
        parsing: false,
        normalized: true,
        responsive: true,
        maintainAspectRatio: false,
        interaction: {mode: 'nearest', intersect: true},
        scales: {
          x: {type: 'linear', min: xMin, max: xMax, ticks: {stepSize: xStep, callback: (value) => day(value)}},
          y: {title: {display: true, text: figure.unit}},
        },
        plugins: {
          legend: {
            labels: {
              filter: (item) => !item.text.endsWith(' spread'),
              sort: (a, b) => a.datasetIndex - b.datasetIndex,
            },
          },
          tooltip: {
            callbacks: {
              title: (items) => (items.length ? items[0].raw.night || '' : ''),
              label: (item) => {
                const raw = item.raw;
                const ratio = raw.ratio ? ', ' + raw.ratio.toFixed(3) + 'x' : '';
                const verdict = raw.verdict ? ' (' + raw.verdict + ratio + ')' : '';
                return item.dataset.label + ': ' + raw.y.toPrecision(4) + ' ' + figure.unit + verdict;
              },
            },
          },
          k25Annotations: {lines: lines},
        },
        onClick: openReport,
        onHover: (event, elements) => {
          event.native.target.style.cursor = elements.length ? 'pointer' : 'default';
        },
      },
    });
    box.dataset.annotations = JSON.stringify(lines);  // what the dashed lines say, readable in the DOM
    if (notes.length) box.appendChild(caption(notes));
    return chart;
  }

  // The first screen now; the rest as it comes near the window, or one chart at a time when the browser is idle.
  try {
    const entries = doc.figures.map(skeleton);
    let drawn = 0;
    const drawEntry = (entry) => {
      if (entry.chart) return;
      entry.chart = draw(entry);
      if (++drawn === entries.length) {
        document.documentElement.dataset.charts = String(drawn);
        window.K25_HISTORY_DRAWN_MS = performance.now();
        performance.mark('k25-history-drawn');
      }
    };
    const screen = window.innerHeight;
    for (const entry of entries)
      if (entry.box.getBoundingClientRect().top < screen) drawEntry(entry);
    window.K25_HISTORY_FIRST_SCREEN_MS = performance.now();
    performance.mark('k25-history-first-screen');
    if (drawn === entries.length) {
      document.documentElement.dataset.charts = String(drawn);
      window.K25_HISTORY_DRAWN_MS = window.K25_HISTORY_FIRST_SCREEN_MS;
    }
    const observer = new IntersectionObserver((seen) => {
      for (const item of seen) {
        if (!item.isIntersecting) continue;
        observer.unobserve(item.target);
        try {
          drawEntry(entries.find((e) => e.box === item.target));
        } catch (error) {
          fail('drawing the charts failed: ' + error);
        }
      }
    }, {rootMargin: '600px 0px'});
    for (const entry of entries)
      if (!entry.chart) observer.observe(entry.box);
    // While the browser is idle, as many charts as its idle time holds (at least one each time).
    const later = window.requestIdleCallback || ((callback) => setTimeout(() => callback({timeRemaining: () => 0}), 1));
    let next = 0;
    const idle = (deadline) => {
      try {
        do {
          while (next < entries.length && entries[next].chart) ++next;
          if (next === entries.length) return;
          drawEntry(entries[next]);
        } while (deadline.timeRemaining() > 0);
        later(idle, {timeout: 100});
      } catch (error) {
        fail('drawing the charts failed: ' + error);
      }
    };
    later(idle, {timeout: 100});
  } catch (error) {
    fail('drawing the charts failed: ' + error);
  }
})();
