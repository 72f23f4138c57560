package docgen

import (
	"slices"
	"strconv"
)

const (
	scratchCap   = 8 << 10 // block scratch (blocks measured up to ~5 KB); a larger one is dropped
	maxTemplates = 4       // boilerplate blocks per value
	docMin       = 4 << 10 // values this long are whole pages; shorter ones fragments
	tinyMax      = 96      // values shorter than this are a truncated paragraph
	fillMin      = 160     // below this much room, Text stops making blocks
	maxPhrase    = 6       // words in a phrase
)

// Page and fragment frames. A value of docMin bytes or more is a whole page
// (docHead ... docTail); a shorter one, like short_html, is a fragment.
const (
	docHead = "<!DOCTYPE html>\n<html class=\"client-nojs\" lang=\"en\" dir=\"ltr\">\n<head>\n<meta charset=\"UTF-8\">\n" +
		"<title>\x07 - Wiki</title>\n" +
		"<link rel=\"stylesheet\" href=\"/w/load.php?lang=en&amp;modules=site.styles&amp;only=styles&amp;skin=vector-2022\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" +
		"<meta property=\"og:title\" content=\"\x07\">\n<meta name=\"revision\" content=\"\x02\x02\">\n" +
		"<link rel=\"canonical\" href=\"https://en.example.org/wiki/\x06\">\n</head>\n" +
		"<body class=\"mediawiki ltr sitedir-ltr mw-hide-empty-elt ns-0 ns-subject page-\x06 rootpage-\x06 skin-vector-2022 action-view\">\n" +
		"<div id=\"content\" class=\"mw-body\" role=\"main\">\n" +
		"<h1 id=\"firstHeading\" class=\"firstHeading mw-first-heading\"><span class=\"mw-page-title-main\">\x07</span></h1>\n" +
		"<div id=\"bodyContent\" class=\"vector-body\">\n<div id=\"siteSub\" class=\"noprint\">From Wiki, the free encyclopedia</div>\n" +
		"<div id=\"mw-content-text\" class=\"mw-body-content\"><div class=\"mw-content-ltr mw-parser-output\" lang=\"en\" dir=\"ltr\">\n"
	docTail = "</div></div>\n<div id=\"catlinks\" class=\"catlinks\" data-mw=\"interface\"></div>\n</div>\n</div>\n" +
		"<footer id=\"footer\" class=\"mw-footer\" role=\"contentinfo\">\n<ul id=\"footer-info\">\n" +
		"<li id=\"footer-info-lastmod\"> This page was last edited on 1 January 2012, at 00:00.</li>\n" +
		"<li id=\"footer-info-copyright\">Text is available under the <a rel=\"license\" href=\"/wiki/License\">license</a>.</li>\n" +
		"</ul>\n</footer>\n</body>\n</html>\n"
	fragHead = "<div class=\"mw-parser-output\">\n"
	fragTail = "</div>\n"
)

// Boilerplate blocks (templates). Each value makes up to maxTemplates of
// them and then repeats them verbatim, as wiki pages repeat navboxes,
// infobox rows and hatnotes.
const (
	navOpen    = "<div role=\"navigation\" class=\"navbox\" aria-labelledby=\"\x03\" style=\"padding:3px\">\n<table class=\"nowraplinks hlist mw-collapsible autocollapse navbox-inner\" style=\"border-spacing:0;background:transparent;color:inherit\">\n<tbody>"
	navRow     = "<tr><th scope=\"row\" class=\"navbox-group\" style=\"width:1%\">\x05</th><td class=\"navbox-list-with-group navbox-list navbox-odd\" style=\"width:100%;padding:0\"><div style=\"padding:0 0.25em\">\n<ul>"
	navRowEnd  = "</ul>\n</div></td></tr>\n"
	navClose   = "</tbody></table></div>\n"
	infoOpen   = "<table class=\"infobox\" style=\"width:22em\">\n<tbody><tr><th colspan=\"2\" class=\"infobox-above\">\x07</th></tr>\n"
	infoRow    = "<tr><th scope=\"row\" class=\"infobox-label\">\x05</th><td class=\"infobox-data\">"
	infoRowEnd = "</td></tr>\n"
	infoClose  = "</tbody></table>\n"
	amboxOpen  = "<table class=\"box-Unreferenced plainlinks metadata ambox ambox-content\" role=\"presentation\"><tbody><tr>" +
		"<td class=\"mbox-image\"><div style=\"width:52px\"><img alt=\"\" src=\"/upload/thumb/9/99/Question_book-new.svg/50px-Question_book-new.svg.png\" decoding=\"async\" width=\"50\" height=\"39\"></div></td>" +
		"<td class=\"mbox-text\"><div class=\"mbox-text-span\">This article <b>needs additional citations for verification</b>. "
	amboxClose = "<span class=\"date-container\"><i>(<span class=\"date\">2008</span>)</i></span></div></td></tr></tbody></table>\n"
	sideOpen   = "<table class=\"sidebar nomobile nowraplinks\">\n<tbody><tr><th class=\"sidebar-title\">\x07</th></tr>\n<tr><td class=\"sidebar-content\">\n<ul>"
	sideClose  = "</ul></td></tr>\n</tbody></table>\n"
	figure     = "<figure class=\"mw-default-size\" typeof=\"mw:File/Thumb\"><a href=\"/wiki/File:\x03.jpg\" class=\"mw-file-description\">" +
		"<img src=\"/upload/thumb/\x08/\x03.jpg/220px-\x03.jpg\" decoding=\"async\" width=\"220\" height=\"\x02\" class=\"mw-file-element\"></a><figcaption>"
	figureEnd = "</figcaption></figure>\n"
	tbodyOpen = "<tbody>"
	tbodyEnd  = "</tbody>"
	rowOpen   = "<tr>"
	rowEnd    = "</tr>\n"
	dtOpen    = "<dt>"
	dtEnd     = "</dt>"
	ddOpen    = "<dd>"
	ddEnd     = "</dd>\n"
)

var extraSnippets = [...]string{
	docHead, docTail, fragHead, fragTail, navOpen, navRow, navRowEnd, navClose, infoOpen, infoRow, infoRowEnd,
	infoClose, amboxOpen, amboxClose, sideOpen, sideClose, figure, figureEnd, tbodyOpen, tbodyEnd, rowOpen, rowEnd,
	dtOpen, dtEnd, ddOpen, ddEnd,
}

// Text appends exactly n bytes of HTML to dst and returns the extended
// slice. A value of 4 KiB or more is a whole wiki-style page; a shorter one
// is a fragment in a <div>; one under 96 bytes is a truncated paragraph. A
// value ends with whole blocks and its closing tags, padded with words and
// spaces to exactly n. n <= 0 appends nothing. Text allocates only when dst
// lacks room for n more bytes.
func (g *Generator) Text(dst []byte, n int) []byte {
	if n <= 0 {
		return dst
	}
	dst = slices.Grow(dst, n)
	base, end := len(dst), len(dst)+n
	g.ntpl, g.cite, g.sect, g.nphr, g.ntgt, g.nblk = 0, 0, 0, 0, 0, 0
	g.title0, g.title1 = g.zipf(), g.zipf()
	g.style = g.skew(len(runSpans))

	if n < tinyMax {
		g.begin(n)
		for !g.over {
			g.paragraph(2)
		}
		return append(dst, g.buf...)
	}
	head, tail := fragHead, fragTail
	if n >= docMin {
		head, tail = docHead, docTail
	}
	g.begin(n - len(tail))
	g.snip(head)
	dst = append(dst, g.buf...) // heads always fit: docMin and tinyMax exceed them

	fails := 0
	for {
		rem := end - len(tail) - len(dst)
		if rem < fillMin {
			break
		}
		g.begin(rem)
		if fails >= 2 {
			// Near the end: short paragraphs until even those miss.
			g.paragraph(1)
			if g.over {
				break
			}
			dst = append(dst, g.buf...)
			continue
		}
		switch k := g.block(); {
		case k >= 0: // repeat template k
			s := g.tpl[k]
			if s.end-s.off > rem {
				fails++
				continue
			}
			dst = append(dst, dst[base+s.off:base+s.end]...)
		case g.over:
			fails++
		case k == newTemplate:
			g.tpl[g.ntpl] = span{len(dst) - base, len(dst) - base + len(g.buf)}
			g.ntpl++
			dst = append(dst, g.buf...)
		default:
			dst = append(dst, g.buf...)
		}
	}
	g.fill(end - len(tail) - len(dst))
	dst = append(dst, g.buf...)
	return append(dst, tail...)
}

// fill writes exactly rem bytes to the scratch: a paragraph of words
// padded with spaces when there is room for one, else spaces and a newline.
func (g *Generator) fill(rem int) {
	g.begin(rem)
	const open, close = "<p>", "</p>\n"
	if rem >= len(open)+len(close)+2 {
		g.put(open)
		stop := rem - len(close)
		for i := 0; ; i++ {
			w := g.t.words[g.zipf()]
			need := len(w)
			if i > 0 {
				need++
			}
			if len(g.buf)+need > stop {
				break
			}
			if i > 0 {
				g.putByte(' ')
			}
			g.put(w)
		}
		for len(g.buf) < stop {
			g.putByte(' ')
		}
		g.put(close)
		return
	}
	for len(g.buf) < rem-1 {
		g.putByte(' ')
	}
	if len(g.buf) < rem {
		g.putByte('\n')
	}
}

// Block kinds returned by block besides a template index.
const (
	plainBlock  = -1
	newTemplate = -2
)

// The mix of a value. See "Tuning" at block.
const (
	// Relative weights of the other (non-template) blocks.
	wPara, wHeading, wList, wTable, wFigure, wOther = 44, 10, 14, 8, 4, 4

	tplEvery    = 3  // every 3rd block is a template slot
	newTplOneIn = 2  // a slot makes a new template 1 time in 2 (while < maxTemplates), else repeats one
	sentMin     = 4  // a sentence has at least sentMin words
	sentSpan    = 14 // and fewer than sentMin+sentSpan before its last phrase or link
	linkPct     = 14 // per cent of sentence units that are links
	inlinePct   = 6  // ... that are one word in inline markup (<b>, <abbr title=...>, ...)
	spanPct     = 95 // per cent of phrases wrapped in the value's run style <span style=...>
	rephrasePct = 80 // per cent of phrases that repeat one of the value's last 64
	relinkPct   = 80 // per cent of links that repeat one of the value's last 32 link targets
	citeOneIn   = 5  // a sentence ends with a citation mark 1 time in 5
	minPhrases  = 16 // phrases a value makes before it repeats any
	minTargets  = 8  // link targets a value makes before it repeats any
)

// block writes the next block to the scratch and returns plainBlock or
// newTemplate, or returns the index of a template to repeat (writing
// nothing).
//
// Tuning. Deflate-6 with its 32 KiB window sees four kinds of bytes here:
//
//   - markup from the snippet tables: long, repeated strings with few holes,
//     nearly free after its first occurrence in the window;
//   - fresh words: Zipf(1.0) over 5,000 words in random order deflate to
//     about 0.37 of their size, like English prose (measured on words
//     only), so prose alone could never reach 0.10;
//   - repeats: phrases and link targets this value already used, and
//     template blocks (navbox, infobox, sidebar, notice box) copied
//     verbatim, each one back-reference;
//   - numbers (table cells, image heights, citation and section counters).
//
// The path to the band, for 64 KiB pages at deflate level 6: independent
// words in wiki-style markup with no repeats gave 0.22, whatever the block
// weights (templates only moved it to ~0.19). Repeating phrases and link
// targets (as real documents repeat their terms and collocations) brought
// it to ~0.16; wrapping nearly every phrase in one verbose run
// <span style=...> per value (as word processors' HTML export does; the
// seed's table is keyed by word_document_id, so its html may well be such
// an export) to ~0.12; a template in every
// 3rd block and shorter tables and lists to ~0.10. Text outside tags is then
// ~17% of a page. Variance between values came mostly from lumpy blocks, so
// templates are kept at similar sizes (0.6-1.8 KB) on a fixed cadence, and
// reuse starts only once a value has minPhrases phrases and minTargets
// targets (else its first sentences repeat one phrase).
//
// Measured (seeds 1-7, 300 values each, compress/flate level 6): 64 KiB
// pages 0.098 on average (p1 0.085, p99 0.111, all within 0.080-0.116);
// klauspost/compress/flate level 6: 0.101. 2 KiB fragments (short_html):
// 0.32 (p1 0.21, p99 0.44): too short for repeats to pay. 16 KiB: 0.17;
// 256 KiB: 0.081. Raising rephrasePct or relinkPct or lowering tplEvery
// lowers the ratio; longer sentences, more tables or numbers raise it.
func (g *Generator) block() int {
	g.nblk++
	if g.nblk%tplEvery == 0 {
		if g.ntpl > 0 && (g.ntpl == maxTemplates || g.r.IntN(newTplOneIn) != 0) {
			return g.r.IntN(g.ntpl)
		}
		g.template()
		return newTemplate
	}
	x := g.r.IntN(wPara + wHeading + wList + wTable + wFigure + wOther)
	switch {
	case x < wPara:
		g.paragraph(5)
	case x < wPara+wHeading:
		g.heading()
	case x < wPara+wHeading+wList:
		g.list()
	case x < wPara+wHeading+wList+wTable:
		g.table()
	case x < wPara+wHeading+wList+wTable+wFigure:
		g.pair()
		g.snip(figure)
		g.words(3 + g.r.IntN(10))
		g.put(figureEnd)
	default:
		d := divTags[g.skew(len(divTags))]
		g.pair()
		g.snip(d.open)
		g.paragraph(2)
		if g.r.IntN(2) == 0 {
			g.snip(voidTags[g.skew(len(voidTags))])
		}
		g.put(d.close)
	}
	return plainBlock
}

// paragraph writes a <p> of 1..maxSent sentences.
func (g *Generator) paragraph(maxSent int) {
	p := paraTags[g.skew(len(paraTags))]
	g.pair()
	g.snip(p.open)
	for s := 1 + g.r.IntN(maxSent); s > 0; s-- {
		g.sentence()
		if s > 1 {
			g.putByte(' ')
		}
	}
	g.put(p.close)
}

// sentence writes about sentMin..sentMin+sentSpan words as phrases,
// links and inline markup, a full stop and sometimes a citation mark.
func (g *Generator) sentence() {
	nw := sentMin + g.r.IntN(sentSpan)
	for i := 0; i < nw; {
		if i > 0 {
			if g.r.IntN(10) == 0 {
				g.putByte(',')
			}
			g.putByte(' ')
		}
		switch x := g.r.IntN(100); {
		case x < linkPct:
			g.link(i == 0)
			i += 1 + min(g.cur1+1, 1)
		case x < linkPct+inlinePct:
			t := inlineTags[g.skew(len(inlineTags))]
			g.snip(t.open)
			g.word(i == 0)
			g.put(t.close)
			i++
		default:
			if g.r.IntN(100) < spanPct {
				g.put(runSpans[g.style])
				i += g.phrase(i == 0)
				g.put("</span>")
			} else {
				i += g.phrase(i == 0)
			}
		}
	}
	g.putByte('.')
	if g.r.IntN(citeOneIn) == 0 {
		g.cite++
		g.count(g.cite)
		g.snip(citeRef)
	}
}

// phrase writes a phrase and returns its word count: one of this value's
// recent phrases (rephrase% of the time), or a new one of 1..maxPhrase
// fresh words, which joins the recent ones.
func (g *Generator) phrase(capital bool) int {
	var p *phrase
	if g.nphr >= minPhrases && g.r.IntN(100) < rephrasePct {
		p = &g.phr[g.r.IntN(min(g.nphr, len(g.phr)))]
	} else {
		p = &g.phr[g.nphr%len(g.phr)]
		g.nphr++
		p.n = uint8(1 + g.r.IntN(maxPhrase))
		for i := range p.n {
			p.w[i] = uint16(g.zipf())
		}
	}
	for i := range p.n {
		if i > 0 {
			g.putByte(' ')
		}
		g.cased(g.t.words[p.w[i]], capital && i == 0)
	}
	return int(p.n)
}

// link writes a link (mostly internal) to the page of a word pair: one of
// this value's recent link targets (relink% of the time) or a new one.
func (g *Generator) link(capital bool) {
	var l *target
	if g.ntgt >= minTargets && g.r.IntN(100) < relinkPct {
		l = &g.tgt[g.r.IntN(min(g.ntgt, len(g.tgt)))]
	} else {
		l = &g.tgt[g.ntgt%len(g.tgt)]
		g.ntgt++
		g.pair()
		l.a, l.b, l.tag = int32(g.cur0), int32(g.cur1), uint8(g.skew(len(linkTags)))
	}
	g.cur0, g.cur1 = int(l.a), int(l.b)
	g.snip(linkTags[l.tag].open)
	g.pairText(capital)
	g.put(linkTags[l.tag].close)
}

func (g *Generator) heading() {
	g.sect++
	i := g.skew(len(headingTags))
	g.pair()
	g.snip(headingTags[i].open)
	g.pairText(true)
	g.put(headingTags[i].close)
	g.count(g.sect)
	g.snip(editLink)
	g.put(headingClose[i])
}

func (g *Generator) list() {
	l := listTags[g.skew(len(listTags))]
	g.snip(l.open)
	dl := l.open == "<dl>\n"
	for k := 3 + g.r.IntN(5); k > 0; k-- {
		if dl {
			g.put(dtOpen)
			g.word(true)
			g.put(dtEnd)
			g.put(ddOpen)
			g.words(2 + g.r.IntN(8))
			g.put(ddEnd)
			continue
		}
		it := itemTags[g.skew(len(itemTags))]
		g.snip(it.open)
		if g.r.IntN(2) == 0 {
			g.link(true)
			g.put(" &ndash; ")
			g.words(1 + g.r.IntN(6))
		} else {
			g.sentence()
		}
		g.put(it.close)
	}
	g.put(l.close)
}

func (g *Generator) table() {
	t := tableTags[g.skew(len(tableTags))]
	g.snip(t.open)
	g.put(tbodyOpen)
	cols := 2 + g.r.IntN(3)
	g.put(rowOpen)
	for c := 0; c < cols; c++ {
		h := headTags[g.skew(len(headTags))]
		g.snip(h.open)
		g.word(true)
		g.put(h.close)
	}
	g.put(rowEnd)
	for r := 2 + g.r.IntN(6); r > 0; r-- {
		g.put(rowOpen)
		for c := 0; c < cols; c++ {
			cell := cellTags[g.skew(len(cellTags))]
			g.snip(cell.open)
			switch x := g.r.IntN(10); {
			case x < 3:
				g.num()
			case x < 7:
				g.words(1 + g.r.IntN(3))
			default:
				g.link(false)
			}
			g.put(cell.close)
		}
		g.put(rowEnd)
	}
	g.put(tbodyEnd)
	g.put(t.close)
}

// template writes a new boilerplate block: a navbox, infobox, sidebar or
// hatnote.
func (g *Generator) template() {
	switch g.ntpl % maxTemplates {
	case 0:
		g.pair()
		g.snip(navOpen)
		for r := 2 + g.r.IntN(2); r > 0; r-- {
			g.pair()
			g.snip(navRow)
			for k := 3 + g.r.IntN(4); k > 0; k-- {
				g.put("<li>")
				g.link(false)
				g.put("</li>\n")
			}
			g.put(navRowEnd)
		}
		g.put(navClose)
	case 1:
		g.snip(infoOpen)
		for r := 5 + g.r.IntN(4); r > 0; r-- {
			g.pair()
			g.snip(infoRow)
			if g.r.IntN(3) == 0 {
				g.num()
			} else {
				g.link(false)
			}
			g.put(infoRowEnd)
		}
		g.put(infoClose)
	case 2:
		g.snip(sideOpen)
		for k := 6 + g.r.IntN(5); k > 0; k-- {
			g.put("<li>")
			g.link(false)
			g.put("</li>\n")
		}
		g.put(sideClose)
	default:
		g.put(amboxOpen)
		g.words(8 + g.r.IntN(9))
		g.put(amboxClose)
	}
}

// ---- scratch writer ----

// begin empties the scratch and sets its limit to min(lim, scratchCap).
func (g *Generator) begin(lim int) {
	g.buf = g.buf[:0]
	g.lim = min(lim, cap(g.buf))
	g.over = false
}

// put appends s, or as much of it as fits under the limit, setting over.
func (g *Generator) put(s string) {
	if room := g.lim - len(g.buf); len(s) > room {
		g.buf = append(g.buf, s[:max(room, 0)]...)
		g.over = true
		return
	}
	g.buf = append(g.buf, s...)
}

func (g *Generator) putBytes(b []byte) {
	if room := g.lim - len(g.buf); len(b) > room {
		g.buf = append(g.buf, b[:max(room, 0)]...)
		g.over = true
		return
	}
	g.buf = append(g.buf, b...)
}

func (g *Generator) putByte(c byte) {
	if len(g.buf) >= g.lim {
		g.over = true
		return
	}
	g.buf = append(g.buf, c)
}

// snip writes a snippet, filling its holes.
func (g *Generator) snip(s string) {
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] > holeMax {
			i++
		}
		g.put(s[:i])
		if i == len(s) {
			return
		}
		switch s[i] {
		case hWord:
			g.word(false)
		case hNum:
			g.num()
		case hSlug:
			g.slug(g.cur0, g.cur1)
		case hCount:
			var a [20]byte
			g.putBytes(strconv.AppendInt(a[:0], int64(g.counter), 10))
		case hText:
			g.text(g.cur0, g.cur1, true)
		case hPageSlug:
			g.slug(g.title0, g.title1)
		case hPageText:
			g.text(g.title0, g.title1, true)
		case hHex:
			const hex = "0123456789abcdef"
			x := g.r.IntN(256)
			g.putByte(hex[x>>4])
			g.putByte('/')
			g.putByte(hex[x>>4])
			g.putByte(hex[x&15])
		}
		s = s[i+1:]
	}
}

// zipf draws a vocabulary rank from Zipf(s=1.0) in O(1).
func (g *Generator) zipf() int {
	x := g.r.Uint64()
	i := int((x >> 32) * VocabSize >> 32)
	if x&(1<<32-1) < g.t.keep[i] {
		return i
	}
	return int(g.t.alias[i])
}

// skew picks an index below n, favouring small ones (min of two uniform
// draws: index 0 is the commonest variant of a tag).
func (g *Generator) skew(n int) int { return min(g.r.IntN(n), g.r.IntN(n)) }

// pair draws the current word pair (the second word half the time absent),
// which hSlug and hText write.
func (g *Generator) pair() {
	g.cur0, g.cur1 = g.zipf(), -1
	if g.r.IntN(2) == 0 {
		g.cur1 = g.zipf()
	}
}

func (g *Generator) count(n int) { g.counter = n }

// word writes one word, capitalised if asked.
func (g *Generator) word(capital bool) { g.cased(g.t.words[g.zipf()], capital) }

// words writes n space-separated words.
func (g *Generator) words(n int) {
	for i := 0; i < n; i++ {
		if i > 0 {
			g.putByte(' ')
		}
		g.word(false)
	}
}

func (g *Generator) cased(w string, capital bool) {
	if capital {
		g.putByte(w[0] - 'a' + 'A')
		w = w[1:]
	}
	g.put(w)
}

// slug writes a word pair as "Word_word" (b < 0: one word).
func (g *Generator) slug(a, b int) {
	g.cased(g.t.words[a], true)
	if b >= 0 {
		g.putByte('_')
		g.put(g.t.words[b])
	}
}

// text writes a word pair as "Word word" or "word word".
func (g *Generator) text(a, b int, capital bool) {
	g.cased(g.t.words[a], capital)
	if b >= 0 {
		g.putByte(' ')
		g.put(g.t.words[b])
	}
}

func (g *Generator) pairText(capital bool) { g.text(g.cur0, g.cur1, capital) }

// num writes a number of 1 to 6 digits; short ones are likelier.
func (g *Generator) num() {
	var a [20]byte
	digits := 1 + g.skew(6)
	lo := pow10[digits-1]
	if digits == 1 {
		lo = 0
	}
	v := lo + g.r.IntN(pow10[digits]-lo)
	g.putBytes(strconv.AppendInt(a[:0], int64(v), 10))
}

var pow10 = [...]int{1, 10, 100, 1000, 10000, 100000, 1000000}

// runSpans are the verbose run styles a value wraps its phrases in (one
// per value), as word processors' HTML export does.
var runSpans = [...]string{
	"<span style=\"font-size:11.0pt;line-height:107%;font-family:&quot;Calibri&quot;,sans-serif\">",
	"<span lang=\"EN-US\" style=\"font-size:12.0pt;font-family:&quot;Times New Roman&quot;,serif;color:black\">",
	"<span style=\"font-size:10.0pt;line-height:115%;font-family:&quot;Arial&quot;,sans-serif;color:#333333\">",
	"<span lang=\"EN-GB\" style=\"font-size:11.0pt;font-family:&quot;Cambria&quot;,serif;letter-spacing:.2pt\">",
}
