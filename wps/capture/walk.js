// One walk over the rendered DOM from BODY down, returning ONE JSON string: Playwright's structured
// serialiser is ~10x slower than JSON.stringify + json.loads for thousands of nodes, and the
// payload is kept compact (tables for tags, styles and contexts; one XPath step per node) because
// moving the string through the driver costs more than the walk itself.
//
// Each node is an array:
//   [parent, tag, visibleIndex, allIndex, left, top, right, bottom, text, style, inside]
// parent: index into the node list (-1 for the root); tag: index into `tags` (text nodes use
// "#text"); visibleIndex / allIndex: the 1-based index of the node's XPath step counting visible
// siblings only (Webis) / all siblings; boxes in page coordinates (viewport rect + scroll offset);
// text: own text of text nodes, whitespace collapsed; style: index into `styles` (-1 for text
// nodes), each entry the computed values in the order of args.styles; inside: index into
// `insides`, context names joined by ",". The root's own XPaths come as rootXpath/rootXpathAll.
(args) => {
  const started = performance.now();
  const contexts = args.contexts;
  const styleNames = args.styles;
  const skipped = new Set(args.skip);
  const maxStyleChars = args.maxStyleChars;
  const scrollX = window.scrollX;
  const scrollY = window.scrollY;
  const root = document.documentElement;
  const body = document.body;
  const pageHeight = Math.max(root ? root.scrollHeight : 0, body ? body.scrollHeight : 0);
  const round = (value) => Math.round(value * 100) / 100;

  // Interning tables: most elements share a tag, a style and a context set.
  function table() {
    const values = [];
    const index = new Map();
    return {
      values,
      id(key) {
        let found = index.get(key);
        if (found === undefined) {
          found = values.length;
          values.push(key);
          index.set(key, found);
        }
        return found;
      },
    };
  }
  const tags = table();
  const styles = table();
  const insides = table();
  const TEXT = tags.id("#text");
  const nodes = [];

  // 1: rendered with a box; 2: `display: contents` (no box of its own, but rendered children,
  // boxed by a Range over its contents); 0: not captured.
  function renderKind(el, tag) {
    if (skipped.has(tag)) return 0;
    if (el.offsetWidth || el.offsetHeight || el.getClientRects().length > 0) return 1;
    return getComputedStyle(el).display === "contents" ? 2 : 0;
  }
  const isText = (node) => node.nodeType === 3 || node.nodeType === 4;
  const isBlank = (node) => !/\S/.test(node.data);

  // Steps for every child of `parent`: [child, tag, visibleIndex (0 = not captured), allIndex,
  // renderKind].
  function childSteps(parent) {
    const allCounts = new Map();
    const visibleCounts = new Map();
    let textAll = 0;
    let textVisible = 0;
    const steps = [];
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 1) {
        const tag = child.tagName.toUpperCase();
        const all = (allCounts.get(tag) || 0) + 1;
        allCounts.set(tag, all);
        let visible = 0;
        const kind = renderKind(child, tag);
        if (kind) {
          visible = (visibleCounts.get(tag) || 0) + 1;
          visibleCounts.set(tag, visible);
        }
        steps.push([child, tag, visible, all, kind]);
      } else if (isText(child)) {
        textAll += 1;
        let visible = 0;
        if (!isBlank(child)) {
          textVisible += 1;
          visible = textVisible;
        }
        steps.push([child, "#text", visible, textAll, 0]);
      }
    }
    return steps;
  }

  function withContext(inside, tag) {
    const context = contexts[tag];
    if (context === undefined) return inside;
    const names = inside ? inside.split(",") : [];
    if (names.includes(context)) return inside;
    names.push(context);
    return names.join(",");
  }

  function styleOf(el) {
    const computed = getComputedStyle(el);
    let key = "";
    for (let i = 0; i < styleNames.length; i += 1) {
      let value = computed.getPropertyValue(styleNames[i]);
      if (value.length > maxStyleChars) value = value.slice(0, maxStyleChars);
      key += (i ? "\u0000" : "") + value;
    }
    return styles.id(key);
  }

  function rootSteps(el) {
    // XPath of the root from <html> down, both ways of counting, and the contexts it opens.
    const chain = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentNode) chain.unshift(node);
    let visible = "";
    let all = "";
    let inside = "";
    for (const node of chain) {
      const parent = node.parentNode;
      const tag = node.tagName.toUpperCase();
      inside = withContext(inside, tag);
      if (!parent || parent.nodeType !== 1) {
        visible += `/${tag}[1]`;
        all += `/${tag}[1]`;
        continue;
      }
      const step = childSteps(parent).find((entry) => entry[0] === node);
      visible += `/${tag}[${step[2] || step[3]}]`;
      all += `/${tag}[${step[3]}]`;
    }
    return [visible, all, inside, chain.length - 1];
  }

  let rootXpath = "";
  let rootXpathAll = "";
  let rootDepth = 0;
  if (body) {
    const range = document.createRange();
    const [xpath, xpathAll, inside, depth] = rootSteps(body);
    rootXpath = xpath;
    rootXpathAll = xpathAll;
    rootDepth = depth;
    // Stack entries: [node, parentIndex, tag, visibleIndex, allIndex, inside, renderKind]
    const stack = [[body, -1, body.tagName.toUpperCase(), 1, 1, inside, 1]];
    while (stack.length) {
      const [node, parent, tag, visible, all, context, kind] = stack.pop();
      let rect;
      if (node.nodeType === 1) {
        if (kind === 2) {
          range.selectNodeContents(node);
          rect = range.getBoundingClientRect();
        } else {
          rect = node.getBoundingClientRect();
        }
        nodes.push([parent, tags.id(tag), visible, all,
          round(rect.left + scrollX), round(rect.top + scrollY),
          round(rect.right + scrollX), round(rect.bottom + scrollY),
          "", styleOf(node), insides.id(context)]);
        const index = nodes.length - 1;
        const steps = childSteps(node);
        for (let i = steps.length - 1; i >= 0; i -= 1) {
          const [child, childTag, childVisible, childAll, childKind] = steps[i];
          if (childVisible === 0) continue;
          const childContext = childTag === "#text" ? context : withContext(context, childTag);
          stack.push([child, index, childTag, childVisible, childAll, childContext, childKind]);
        }
      } else {
        range.selectNodeContents(node);
        rect = range.getBoundingClientRect();
        nodes.push([parent, TEXT, visible, all,
          round(rect.left + scrollX), round(rect.top + scrollY),
          round(rect.right + scrollX), round(rect.bottom + scrollY),
          node.data.replace(/\s+/g, " ").trim(), -1, insides.id(context)]);
      }
    }
  }
  return JSON.stringify({
    nodes: nodes,
    tags: tags.values,
    styles: styles.values.map((key) => key.split("\u0000")),
    insides: insides.values,
    rootXpath: rootXpath,
    rootXpathAll: rootXpathAll,
    rootDepth: rootDepth,
    height: pageHeight,
    width: root ? root.scrollWidth : 0,
    walk_ms: performance.now() - started,
  });
}
