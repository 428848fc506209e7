"""A few drawing primitives recorded once and written as SVG (always) or PNG (with Pillow).

The board pictures and the signal window are laid out once as a list of shapes; SVG is the
format of record (text stays text, squares and values carry tooltips and classes a test or a
browser can find), PNG is the same picture for places that show no SVG. No display is needed.
"""

from dataclasses import dataclass, field
from html import escape

FONT = "DejaVu Sans, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
MONO_CHAR_WIDTH = 0.62  # width of one monospace character per unit of font size (layout estimate)


@dataclass
class Shape:
    kind: str  # rect, line, polyline, polygon, circle, text
    geometry: tuple
    style: dict
    attrs: dict = field(default_factory=dict)  # SVG-only: class, data-*, ...
    title: str = ""  # SVG tooltip


def _attrs(attrs):
    return "".join(f' {name}="{escape(str(value))}"' for name, value in attrs.items() if value is not None)


class Canvas:
    def __init__(self, width, height, background="#ffffff"):
        self.width, self.height, self.background = width, height, background
        self.shapes = []

    def _add(self, kind, geometry, style, attrs=None, title=""):
        self.shapes.append(Shape(kind, geometry, style, dict(attrs or {}), title))

    def rect(self, x, y, w, h, fill="none", stroke=None, width=1, attrs=None, title="", dash=None):
        self._add("rect", (x, y, w, h), {"fill": fill, "stroke": stroke, "width": width, "dash": dash}, attrs, title)

    def line(self, x1, y1, x2, y2, stroke="#000", width=1, dash=None):
        self._add("line", (x1, y1, x2, y2), {"stroke": stroke, "width": width, "dash": dash})

    def polyline(self, points, stroke="#000", width=1):
        self._add("polyline", tuple(points), {"stroke": stroke, "width": width})

    def polygon(self, points, fill="none", stroke="#000", width=1, title=""):
        self._add("polygon", tuple(points), {"fill": fill, "stroke": stroke, "width": width}, title=title)

    def circle(self, cx, cy, r, fill="none", stroke=None, width=1):
        self._add("circle", (cx, cy, r), {"fill": fill, "stroke": stroke, "width": width})

    def text(self, x, y, text, size=12, fill="#000", anchor="start", bold=False, mono=False, attrs=None, title=""):
        self._add("text", (x, y, str(text)), {"size": size, "fill": fill, "anchor": anchor, "bold": bold,
                                              "mono": mono}, attrs, title)

    # --- SVG ---------------------------------------------------------------------------------

    def svg(self, title=""):
        body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" height="{self.height:.0f}" '
                f'viewBox="0 0 {self.width:.0f} {self.height:.0f}" font-family="{FONT}">']
        if title:
            body.append(f"<title>{escape(title)}</title>")
        body.append(f'<rect x="0" y="0" width="{self.width:.0f}" height="{self.height:.0f}" fill="{self.background}"/>')
        body += [_svg_shape(shape) for shape in self.shapes]
        body.append("</svg>")
        return "\n".join(body) + "\n"

    # --- PNG ---------------------------------------------------------------------------------

    def png(self, path, scale=1):
        """Write the picture as PNG; raises ImportError when Pillow is missing."""
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (int(self.width * scale), int(self.height * scale)), self.background)
        draw = ImageDraw.Draw(image)
        fonts = {}
        for shape in self.shapes:
            _png_shape(draw, shape, scale, fonts)
        image.save(path)


def _stroke(style):
    if not style.get("stroke"):
        return ' stroke="none"'
    dash = f' stroke-dasharray="{style["dash"]}"' if style.get("dash") else ""
    return f' stroke="{style["stroke"]}" stroke-width="{style["width"]}"{dash}'


def _points(points):
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _svg_shape(shape):
    g, s = shape.geometry, shape.style
    title = f"<title>{escape(shape.title)}</title>" if shape.title else ""
    extra = _attrs(shape.attrs)
    if shape.kind == "rect":
        head = (f'<rect x="{g[0]:.1f}" y="{g[1]:.1f}" width="{g[2]:.1f}" height="{g[3]:.1f}" fill="{s["fill"]}"'
                f'{_stroke(s)}{extra}')
    elif shape.kind == "line":
        head = f'<line x1="{g[0]:.1f}" y1="{g[1]:.1f}" x2="{g[2]:.1f}" y2="{g[3]:.1f}"{_stroke(s)}{extra}'
    elif shape.kind == "polyline":
        head = f'<polyline points="{_points(g)}" fill="none"{_stroke(s)}{extra}'
    elif shape.kind == "polygon":
        head = f'<polygon points="{_points(g)}" fill="{s["fill"]}"{_stroke(s)}{extra}'
    elif shape.kind == "circle":
        head = f'<circle cx="{g[0]:.1f}" cy="{g[1]:.1f}" r="{g[2]:.1f}" fill="{s["fill"]}"{_stroke(s)}{extra}'
    else:
        anchor = {"start": "start", "middle": "middle", "end": "end"}[s["anchor"]]
        font = f' font-family="{MONO}"' if s["mono"] else ""
        weight = ' font-weight="bold"' if s["bold"] else ""
        return (f'<text x="{g[0]:.1f}" y="{g[1]:.1f}" font-size="{s["size"]}" fill="{s["fill"]}" '
                f'text-anchor="{anchor}"{font}{weight}{extra}>{title}{escape(g[2])}</text>')
    return f"{head}>{title}</{shape.kind}>" if title else f"{head}/>"


def _font(fonts, size, mono):
    from PIL import ImageFont

    key = (size, mono)
    if key not in fonts:
        try:  # DejaVu ships with most Linux systems; Pillow's own font otherwise
            fonts[key] = ImageFont.truetype("DejaVuSansMono.ttf" if mono else "DejaVuSans.ttf", size)
        except OSError:
            fonts[key] = ImageFont.load_default(size=size)
    return fonts[key]


def _png_shape(draw, shape, k, fonts):
    g, s = shape.geometry, shape.style
    fill = None if s.get("fill") in (None, "none") else s["fill"]
    outline = s.get("stroke") or None
    width = max(1, round(s.get("width", 1) * k))
    if shape.kind == "rect":
        draw.rectangle([g[0] * k, g[1] * k, (g[0] + g[2]) * k, (g[1] + g[3]) * k], fill=fill, outline=outline,
                       width=width)
    elif shape.kind == "line":
        draw.line([g[0] * k, g[1] * k, g[2] * k, g[3] * k], fill=outline, width=width)
    elif shape.kind == "polyline":
        draw.line([(x * k, y * k) for x, y in g], fill=outline, width=width)
    elif shape.kind == "polygon":
        draw.polygon([(x * k, y * k) for x, y in g], fill=fill, outline=outline)
    elif shape.kind == "circle":
        draw.ellipse([(g[0] - g[2]) * k, (g[1] - g[2]) * k, (g[0] + g[2]) * k, (g[1] + g[2]) * k], fill=fill,
                     outline=outline, width=width)
    else:
        anchor = {"start": "ls", "middle": "ms", "end": "rs"}[s["anchor"]]
        draw.text((g[0] * k, g[1] * k), g[2], fill=s["fill"], font=_font(fonts, round(s["size"] * k), s["mono"]),
                  anchor=anchor)


def fit_text(text, width_px, size):
    """``text`` cut to what fits ``width_px`` of monospace at ``size`` (an ellipsis marks a cut)."""
    fits = int(width_px / (size * MONO_CHAR_WIDTH))
    if len(text) <= fits:
        return text
    return text[:fits - 1] + "…" if fits >= 2 else ""
