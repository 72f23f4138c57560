package docgen

import (
	"math/rand/v2"
	"sync"
)

// VocabSize is the number of distinct words the generator draws from.
const VocabSize = 5000

// tables are the read-only data every Generator shares: the vocabulary, its
// Zipf alias table and the snippet pool. They depend on nothing but this
// file, so every process builds the same ones.
type tables struct {
	words []string // by rank: words[0] is the most frequent
	// Vose alias table for Zipf(s=1.0) over the ranks: rank i is kept when
	// the low 32 bits of a draw are below keep[i], else alias[i] is used.
	keep  []uint64
	alias []uint16
}

var shared = sync.OnceValue(buildTables)

// Syllable parts. A word is one to four onset+vowel(+coda) syllables, so
// words read like words ("stembrolen", "caver") rather than random bytes.
var (
	onsets = [...]string{"", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w",
		"br", "ch", "cl", "cr", "dr", "fl", "gr", "pl", "pr", "sh", "sl", "sp", "st", "th", "tr", "wh"}
	vowels = [...]string{"a", "e", "i", "o", "u", "a", "e", "o", "ea", "ou", "io", "ai", "ee", "y"}
	codas  = [...]string{"", "", "", "", "n", "r", "s", "l", "t", "m", "nd", "st", "ng", "ck", "rt", "ns", "x"}
	// suffixes are appended to some longer words (and only to those).
	suffixes = [...]string{"tion", "ment", "ing", "ed", "er", "ly", "ness", "al", "ic", "ous", "ive", "ity"}
)

// syllableCount gives the number of syllables of the word of a rank:
// frequent words are short, as in natural language.
func syllableCount(rank int, r *rand.Rand) int {
	switch {
	case rank < 60:
		return 1
	case rank < 600:
		return 1 + r.IntN(2)
	case rank < 2500:
		return 2 + r.IntN(2)
	default:
		return 2 + r.IntN(3)
	}
}

func buildTables() *tables {
	// A fixed seed, independent of any Generator's: the vocabulary is part
	// of the workload's definition.
	r := rand.New(rand.NewPCG(0x646f6367656e, 0x766f636162)) // "docgen", "vocab"
	t := &tables{words: make([]string, 0, VocabSize)}
	seen := make(map[string]bool, VocabSize)
	var b []byte
	for len(t.words) < VocabSize {
		rank := len(t.words)
		b = b[:0]
		ns := syllableCount(rank, r)
		for s := 0; s < ns; s++ {
			b = append(b, onsets[r.IntN(len(onsets))]...)
			b = append(b, vowels[r.IntN(len(vowels))]...)
			b = append(b, codas[r.IntN(len(codas))]...)
		}
		if ns >= 2 && r.IntN(4) == 0 {
			b = append(b, suffixes[r.IntN(len(suffixes))]...)
		}
		if len(b) < 2 || len(b) > 16 || seen[string(b)] {
			continue
		}
		w := string(b)
		seen[w] = true
		t.words = append(t.words, w)
	}
	t.keep, t.alias = zipfAlias(VocabSize)
	return t
}

// zipfAlias builds Vose's alias table for P(rank i) ∝ 1/(i+1), i < n.
func zipfAlias(n int) (keep []uint64, alias []uint16) {
	p := make([]float64, n)
	sum := 0.0
	for i := range p {
		p[i] = 1 / float64(i+1)
		sum += p[i]
	}
	small := make([]int, 0, n)
	large := make([]int, 0, n)
	for i := range p {
		p[i] *= float64(n) / sum
		if p[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	keep = make([]uint64, n)
	alias = make([]uint16, n)
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		keep[s] = uint64(p[s] * (1 << 32))
		alias[s] = uint16(l)
		p[l] -= 1 - p[s]
		if p[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range large {
		keep[i], alias[i] = 1<<32, uint16(i)
	}
	for _, i := range small { // rounding leftovers
		keep[i], alias[i] = 1<<32, uint16(i)
	}
	return keep, alias
}

// The snippet pool. Holes in a snippet are filled when it is written.
const (
	hWord     = '\x01' // a fresh vocabulary word
	hNum      = '\x02' // a fresh number (1 to 6 digits, small ones likelier)
	hSlug     = '\x03' // the current word pair as a wiki slug: "Brandel_sto"
	hCount    = '\x04' // the current counter (section or citation number)
	hText     = '\x05' // the current word pair as text: "Brandel sto"
	hPageSlug = '\x06' // the page title as a slug
	hPageText = '\x07' // the page title as text
	hHex      = '\x08' // an upload directory such as "a/a3"
	holeMax   = hHex
)

type pair struct{ open, close string }

var (
	paraTags = [...]pair{
		{"<p>", "</p>\n"}, {"<p>", "</p>\n"}, {"<p>", "</p>\n"}, {"<p class=\"lead\">", "</p>\n"},
		{"<p class=\"mw-empty-elt\">", "</p>\n"}, {"<p dir=\"ltr\">", "</p>\n"}, {"<p class=\"note\">", "</p>\n"},
		{"<p style=\"margin-left:1.6em\">", "</p>\n"}, {"<p id=\"\x03\">", "</p>\n"}, {"<p class=\"caption\">", "</p>\n"},
	}
	inlineTags = [...]pair{
		{"<b>", "</b>"}, {"<i>", "</i>"}, {"<em>", "</em>"}, {"<strong>", "</strong>"},
		{"<code>", "</code>"}, {"<small>", "</small>"}, {"<sub>", "</sub>"}, {"<sup>", "</sup>"},
		{"<q>", "</q>"}, {"<cite>", "</cite>"}, {"<dfn>", "</dfn>"}, {"<kbd>", "</kbd>"},
		{"<var>", "</var>"}, {"<abbr title=\"\x01 \x01\">", "</abbr>"}, {"<span class=\"nowrap\">", "</span>"},
		{"<span class=\"mw-lang\" lang=\"la\">", "</span>"}, {"<span class=\"citation-needed\">", "</span>"},
		{"<span class=\"plainlinks\">", "</span>"}, {"<span class=\"texhtml\">", "</span>"},
		{"<span class=\"smallcaps\">", "</span>"}, {"<span style=\"white-space:nowrap\">", "</span>"},
		{"<span title=\"\x01\">", "</span>"}, {"<time datetime=\"\x02\">", "</time>"},
		{"<mark>", "</mark>"}, {"<s>", "</s>"}, {"<u>", "</u>"}, {"<ins>", "</ins>"}, {"<del>", "</del>"},
		{"<bdi>", "</bdi>"}, {"<samp>", "</samp>"}, {"<span class=\"SpellE\">", "</span>"},
		{"<span class=\"GramE\">", "</span>"}, {"<font face=\"Arial\" size=\"2\">", "</font>"},
		{"<span lang=\"EN-US\">", "</span>"},
	}
	// linkTags wrap a link's text; the first is the ordinary internal link.
	linkTags = [...]pair{
		{"<a href=\"/wiki/\x03\" title=\"\x05\">", "</a>"},
		{"<a href=\"/wiki/\x03\" class=\"mw-redirect\" title=\"\x05\">", "</a>"},
		{"<a href=\"/w/index.php?title=\x03&amp;action=edit&amp;redlink=1\" class=\"new\" title=\"\x05\">", "</a>"},
		{"<a rel=\"nofollow\" class=\"external text\" href=\"https://www.\x01.org/\x01/\x02.html\">", "</a>"},
		{"<a href=\"/wiki/Category:\x03\" title=\"\x05\">", "</a>"},
		{"<a href=\"/wiki/Help:\x03\" title=\"\x05\">", "</a>"},
	}
	divTags = [...]pair{
		{"<div class=\"thumb tright\">", "</div>\n"}, {"<div class=\"reflist\">", "</div>\n"},
		{"<div class=\"hatnote navigation-not-searchable\" role=\"note\">", "</div>\n"},
		{"<div id=\"\x03\">", "</div>\n"}, {"<div class=\"mw-collapsible\">", "</div>\n"},
		{"<div class=\"quotebox\">", "</div>\n"}, {"<div class=\"toc\" id=\"toc\">", "</div>\n"},
		{"<div style=\"clear:both\">", "</div>\n"}, {"<div class=\"portal\" id=\"p-\x01\">", "</div>\n"},
		{"<div class=\"div-col\" style=\"column-width: 30em;\">", "</div>\n"},
		{"<section id=\"s-\x02\">", "</section>\n"}, {"<aside class=\"sidebar\">", "</aside>\n"},
		{"<blockquote>", "</blockquote>\n"}, {"<blockquote class=\"templatequote\">", "</blockquote>\n"},
		{"<pre>", "</pre>\n"}, {"<nav class=\"breadcrumbs\">", "</nav>\n"},
		{"<div class=\"MsoNormal\" style=\"margin-bottom:0in;line-height:normal\">", "</div>\n"},
		{"<div class=\"WordSection1\">", "</div>\n"}, {"<center>", "</center>\n"},
		{"<div class=\"shortdescription nomobile noexcerpt noprint searchaux\" style=\"display:none\">", "</div>\n"},
	}
	listTags = [...]pair{
		{"<ul>\n", "</ul>\n"}, {"<ul>\n", "</ul>\n"}, {"<ol>\n", "</ol>\n"}, {"<ul class=\"references\">\n", "</ul>\n"},
		{"<ol class=\"references\">\n", "</ol>\n"}, {"<ul class=\"hlist\">\n", "</ul>\n"},
		{"<ul class=\"gallery mw-gallery-traditional\">\n", "</ul>\n"}, {"<dl>\n", "</dl>\n"},
	}
	itemTags = [...]pair{
		{"<li>", "</li>\n"}, {"<li>", "</li>\n"}, {"<li>", "</li>\n"}, {"<li class=\"toclevel-1\">", "</li>\n"},
		{"<li id=\"cite_note-\x02\">", "</li>\n"}, {"<li class=\"mw-list-item\">", "</li>\n"},
		{"<li class=\"nv-view\">", "</li>\n"}, {"<li value=\"\x02\">", "</li>\n"},
	}
	tableTags = [...]pair{
		{"<table class=\"wikitable\">\n", "</table>\n"}, {"<table class=\"wikitable sortable\">\n", "</table>\n"},
		{"<table class=\"infobox vcard\">\n", "</table>\n"}, {"<table class=\"wikitable plainrowheaders\">\n", "</table>\n"},
		{"<table class=\"sortable wikitable\" style=\"text-align:center\">\n", "</table>\n"},
		{"<table style=\"width:100%\">\n", "</table>\n"},
	}
	cellTags = [...]pair{
		{"<td>", "</td>"}, {"<td>", "</td>"}, {"<td>", "</td>"}, {"<td align=\"right\">", "</td>"},
		{"<td style=\"text-align:right\">", "</td>"}, {"<td class=\"nowrap\">", "</td>"},
		{"<td colspan=\"2\">", "</td>"}, {"<td rowspan=\"2\">", "</td>"}, {"<td data-sort-value=\"\x02\">", "</td>"},
		{"<td style=\"background:#DFD\">", "</td>"}, {"<td class=\"table-yes\">", "</td>"},
	}
	headTags = [...]pair{
		{"<th>", "</th>"}, {"<th scope=\"col\">", "</th>"}, {"<th scope=\"col\">", "</th>"},
		{"<th scope=\"row\">", "</th>"}, {"<th class=\"unsortable\">", "</th>"}, {"<th style=\"width:5em\">", "</th>"},
		{"<th colspan=\"2\" class=\"infobox-header\">", "</th>"},
	}
	voidTags = [...]string{
		"<br>", "<br>", "<br />", "<wbr>", "<hr>\n", "<span class=\"mw-cite-backlink\">^</span> ",
		"<img src=\"/static/images/icons/\x01.svg\" width=\"16\" height=\"16\" alt=\"\">",
		"<span class=\"reference-accessdate\">. Retrieved \x02 </span>",
		"<meta property=\"mw:PageProp/toc\">\n", "<link rel=\"mw:PageProp/Category\" href=\"./Category:\x03\">\n",
		"<input type=\"checkbox\" role=\"button\" id=\"toctogglecheckbox\" class=\"toctogglecheckbox\">",
		"<a id=\"\x03\"></a>", "<span class=\"anchor\" id=\"\x03\"></span>",
		"<span class=\"flagicon\"><img alt=\"\" src=\"/upload/thumb/\x08/Flag_of_\x03.svg/23px-Flag_of_\x03.svg.png\" width=\"23\" height=\"15\"></span>",
		"<link rel=\"mw-deduplicated-inline-style\" href=\"mw-data:TemplateStyles:r\x02\">",
		"<span class=\"Z3988\" title=\"ctx_ver=Z39.88-2004&amp;rft.genre=book&amp;rft.btitle=\x03\"></span>",
		"<span typeof=\"mw:Entity\">&nbsp;</span>", "<span class=\"nowrap\">&nbsp;</span>",
		"<o:p></o:p>", "<!-- \x01 \x01 -->\n",
	}
	headingTags = [...]pair{
		{"<h2><span class=\"mw-headline\" id=\"\x03\">", "</span>"},
		{"<h3><span class=\"mw-headline\" id=\"\x03\">", "</span>"},
		{"<h3><span class=\"mw-headline\" id=\"\x03\">", "</span>"},
		{"<h4><span class=\"mw-headline\" id=\"\x03\">", "</span>"},
	}
	headingClose = [...]string{"</h2>\n", "</h3>\n", "</h3>\n", "</h4>\n"}
	// editLink follows a heading's text, as MediaWiki's section edit link.
	editLink = "<span class=\"mw-editsection\"><span class=\"mw-editsection-bracket\">[</span>" +
		"<a href=\"/w/index.php?title=\x06&amp;action=edit&amp;section=\x04\" title=\"Edit section: \x05\">edit</a>" +
		"<span class=\"mw-editsection-bracket\">]</span></span>"
	citeRef = "<sup id=\"cite_ref-\x04\" class=\"reference\"><a href=\"#cite_note-\x04\">[\x04]</a></sup>"
)

// snippetPool returns the distinct snippets (openers, closers and void
// snippets) the generator's markup is made of. Tests count them.
func snippetPool() map[string]bool {
	m := map[string]bool{}
	addPairs := func(ps []pair) {
		for _, p := range ps {
			m[p.open], m[p.close] = true, true
		}
	}
	addPairs(paraTags[:])
	addPairs(inlineTags[:])
	addPairs(linkTags[:])
	addPairs(divTags[:])
	addPairs(listTags[:])
	addPairs(itemTags[:])
	addPairs(tableTags[:])
	addPairs(cellTags[:])
	addPairs(headTags[:])
	addPairs(headingTags[:])
	for _, s := range voidTags {
		m[s] = true
	}
	for _, s := range headingClose {
		m[s] = true
	}
	m[editLink], m[citeRef] = true, true
	for _, s := range extraSnippets {
		m[s] = true
	}
	for _, s := range runSpans {
		m[s] = true
	}
	return m
}
