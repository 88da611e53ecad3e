// AnnoLinkEngine: GEOS and PROJ behind Swift APIs. C types never leave this target.
import CGEOS
import CPROJ

