// One walk over the rendered DOM from BODY down, returning ONE JSON string: Playwright's structured
// serialiser is ~10x slower than JSON.stringify + json.loads for thousands of nodes.
//
// Each node is an array:
//   [parent, tag, xpath, xpathAll, left, top, right, bottom, text, style, inside, depth]
// parent: index into the node list (-1 for the root); tag: upper-case or "#text"; xpath: Webis-style,
// counting visible siblings only; xpathAll: counting all siblings (resolves against the serialised
// DOM); boxes in page coordinates (viewport rect + scroll offset); text: own text of text nodes,
// whitespace collapsed; style: computed values in the order of args.styles (null for text nodes);
// inside: context names joined by ","; depth: number of XPath steps minus one (BODY = 1).
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
  const nodes = [];
  const pageHeight = Math.max(root ? root.scrollHeight : 0, body ? body.scrollHeight : 0);
  const round = (value) => Math.round(value * 100) / 100;

  const isVisibleElement = (el) =>
    !skipped.has(el.tagName.toUpperCase()) &&
    (el.offsetWidth || el.offsetHeight || el.getClientRects().length > 0);
  const isText = (node) => node.nodeType === 3 || node.nodeType === 4;
  const isBlank = (node) => !/\S/.test(node.data);

  // Steps for every child of `parent`: [child, stepVisible|null, stepAll], in document order.
  // stepVisible is null for children that are not captured (invisible, blank or skipped).
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
        let visibleStep = null;
        if (isVisibleElement(child)) {
          const visible = (visibleCounts.get(tag) || 0) + 1;
          visibleCounts.set(tag, visible);
          visibleStep = `${tag}[${visible}]`;
        }
        steps.push([child, visibleStep, `${tag}[${all}]`]);
      } else if (isText(child)) {
        textAll += 1;
        let visibleStep = null;
        if (!isBlank(child)) {
          textVisible += 1;
          visibleStep = `text()[${textVisible}]`;
        }
        steps.push([child, visibleStep, `text()[${textAll}]`]);
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
    return styleNames.map((name) => {
      const value = computed.getPropertyValue(name);
      return value.length > maxStyleChars ? value.slice(0, maxStyleChars) : value;
    });
  }

  function rootSteps(el) {
    // XPath of the root from <html> down, both ways of counting.
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
      visible += "/" + (step[1] || step[2]);
      all += "/" + step[2];
    }
    return [visible, all, inside, chain.length - 1];
  }

  if (body) {
    const range = document.createRange();
    const [xpath, xpathAll, inside, depth] = rootSteps(body);
    // Stack entries: [node, parentIndex, xpath, xpathAll, inside, depth]
    const stack = [[body, -1, xpath, xpathAll, inside, depth]];
    while (stack.length) {
      const [node, parent, path, pathAll, context, level] = stack.pop();
      let rect;
      if (node.nodeType === 1) {
        rect = node.getBoundingClientRect();
        const tag = node.tagName.toUpperCase();
        nodes.push([parent, tag, path, pathAll,
          round(rect.left + scrollX), round(rect.top + scrollY),
          round(rect.right + scrollX), round(rect.bottom + scrollY),
          "", styleOf(node), context, level]);
        const index = nodes.length - 1;
        const steps = childSteps(node);
        for (let i = steps.length - 1; i >= 0; i -= 1) {
          const [child, visibleStep, allStep] = steps[i];
          if (visibleStep === null) continue;
          const childContext = child.nodeType === 1
            ? withContext(context, child.tagName.toUpperCase()) : context;
          stack.push([child, index, `${path}/${visibleStep}`, `${pathAll}/${allStep}`,
            childContext, level + 1]);
        }
      } else {
        range.selectNodeContents(node);
        rect = range.getBoundingClientRect();
        nodes.push([parent, "#text", path, pathAll,
          round(rect.left + scrollX), round(rect.top + scrollY),
          round(rect.right + scrollX), round(rect.bottom + scrollY),
          node.data.replace(/\s+/g, " ").trim(), null, context, level]);
      }
    }
  }
  return JSON.stringify({
    nodes: nodes,
    height: pageHeight,
    width: root ? root.scrollWidth : 0,
    walk_ms: performance.now() - started,
  });
}
